package io.github.dropwizardhikari.benchmarks;

import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.benchmarks.jmh.Pools;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * Many virtual threads borrowing from one small pool, as requests do under Dropwizard's
 * {@code server.enableVirtualThreads: true}: each borrower takes a connection of the stub driver, holds it for a
 * parked while (like a round trip to the database, which unmounts a virtual thread), returns it, and starts again.
 * After a warm-up it measures borrows per second, each borrow's wait (HdrHistogram, exact), and how many borrows
 * each borrower got, and appends one tab-separated row per cell.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.github.dropwizardhikari.benchmarks.VirtualBorrowers \
 *     OUT.tsv WARMUP_S MEASURE_S POOL_CONFIG BORROWERS POOL_SIZE HOLD_MS
 * </pre>
 *
 * Needs JDK 21+ (virtual threads); the module compiles for 17, so the executor is looked up by name. With
 * {@code -Dborrowers.threads=platform} the borrowers are platform threads instead (any JDK), and the row's config
 * reads {@code <config>+platform}.
 */
public final class VirtualBorrowers {
    static final String HEADER = "config\tborrowers\tpool\thold_ms\tborrows_per_s\twait_p50_ms\twait_p99_ms"
        + "\twait_p999_ms\twait_max_ms\tfifo_prediction_ms\tper_borrower_min\tper_borrower_max\tfailed\tjdk";
    private static final Duration TIMEOUT = Duration.seconds(30);

    private VirtualBorrowers() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: VirtualBorrowers OUT.tsv WARMUP_S MEASURE_S CONFIG BORROWERS POOL HOLD_MS "
                + "(CONFIG: hikari-fair-borrowing | hikari | raw-hikari-no-metrics | tomcat-safe | tomcat-default)");
            System.exit(2);
        }
        Path out = Path.of(args[0]);
        int warmup = Integer.parseInt(args[1]);
        int measure = Integer.parseInt(args[2]);
        String config = args[3];
        int borrowers = Integer.parseInt(args[4]);
        int poolSize = Integer.parseInt(args[5]);
        double holdMillis = Double.parseDouble(args[6]);

        String row = run(config, borrowers, poolSize, holdMillis, warmup, measure);
        System.out.println(row);
        if (!Files.exists(out)) {
            Files.writeString(out, HEADER + "\n", StandardCharsets.UTF_8);
        }
        Files.writeString(out, row + "\n", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    }

    private static String run(String config, int borrowers, int poolSize, double holdMillis, int warmup,
                              int measure) throws Exception {
        Pools pools = Pools.of(config, "stub", poolSize, TIMEOUT);
        pools.start();
        long holdNanos = Math.round(holdMillis * 1_000_000);
        Recorder waits = new Recorder(3);
        AtomicLongArray borrowsOf = new AtomicLongArray(borrowers);
        AtomicLong failed = new AtomicLong();
        AtomicBoolean running = new AtomicBoolean(true);
        boolean platform = "platform".equals(System.getProperty("borrowers.threads"));
        ExecutorService threads = platform ? Executors.newFixedThreadPool(borrowers) : virtualThreadPerTaskExecutor();
        try {
            for (int i = 0; i < borrowers; i++) {
                int borrower = i;
                threads.execute(() -> {
                    while (running.get()) {
                        long asked = System.nanoTime();
                        try (Connection ignored = pools.dataSource().getConnection()) {
                            waits.recordValue(System.nanoTime() - asked);
                            borrowsOf.incrementAndGet(borrower);
                            LockSupport.parkNanos(holdNanos);
                        } catch (SQLException e) {
                            failed.incrementAndGet();
                        }
                    }
                });
            }
            TimeUnit.SECONDS.sleep(warmup);
            long[] before = snapshot(borrowsOf);
            long failedBefore = failed.get();
            waits.getIntervalHistogram(); // the warm-up's waits are dropped
            long started = System.nanoTime();
            TimeUnit.SECONDS.sleep(measure);
            Histogram histogram = waits.getIntervalHistogram();
            long elapsed = System.nanoTime() - started;
            long[] after = snapshot(borrowsOf);
            long failedDuring = failed.get() - failedBefore;
            running.set(false);

            long min = Long.MAX_VALUE;
            long max = 0;
            long total = 0;
            for (int i = 0; i < borrowers; i++) {
                long got = after[i] - before[i];
                min = Math.min(min, got);
                max = Math.max(max, got);
                total += got;
            }
            double perSecond = total / (elapsed / 1e9);
            // a FIFO queue at this throughput: each borrower waits for all the others once
            double fifoMillis = borrowers / perSecond * 1000;
            return String.format(Locale.ROOT, "%s\t%d\t%d\t%.1f\t%.0f\t%.2f\t%.2f\t%.2f\t%.2f\t%.1f\t%d\t%d\t%d\t%s",
                platform ? config + "+platform" : config, borrowers, poolSize, holdMillis, perSecond, millis(histogram, 50), millis(histogram, 99),
                millis(histogram, 99.9), histogram.getMaxValue() / 1e6, fifoMillis, min, max, failedDuring,
                Runtime.version().feature());
        } finally {
            running.set(false);
            threads.shutdown();
            if (!threads.awaitTermination(TIMEOUT.toSeconds() + 10, TimeUnit.SECONDS)) {
                System.err.println("borrowers still running after the pool's timeout");
            }
            pools.stop();
        }
    }

    private static double millis(Histogram histogram, double percentile) {
        return histogram.getValueAtPercentile(percentile) / 1e6;
    }

    private static long[] snapshot(AtomicLongArray counts) {
        long[] copy = new long[counts.length()];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = counts.get(i);
        }
        return copy;
    }

    private static ExecutorService virtualThreadPerTaskExecutor() throws ReflectiveOperationException {
        if (Runtime.version().feature() < 21) {
            throw new IllegalStateException("virtual threads need JDK 21 or newer; this is " + Runtime.version());
        }
        return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    }
}
