package io.github.dropwizardhikari.benchmarks.jmh;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.zaxxer.hikari.metrics.IMetricsTracker;
import com.zaxxer.hikari.metrics.PoolStats;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.zaxxer.hikari.metrics.dropwizard.CodahaleMetricsTrackerFactory;
import org.HdrHistogram.Recorder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the parts of a borrow cost on their own, one thread, in nanoseconds: the least a fair gate does (take and give
 * back a place on the JDK's fair {@link Semaphore}), the least thread-safe recording does (one atomic increment), and
 * what the bundle's metrics do for each borrow and return (HikariCP calls the tracker twice a cycle). Set beside the
 * stub connection cycle, they show how much of a cycle's time any fair gate and any exact metrics must take.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CostFloor {
    private final Semaphore fairPlaces = new Semaphore(32, true);
    private final AtomicLong atomic = new AtomicLong();
    private final LongAdder adder = new LongAdder();
    private final Recorder recorder = new Recorder(2);
    private final Histogram histogram = new Histogram(LockFreeExponentiallyDecayingReservoir.builder().build());
    private final Timer timer = new Timer(LockFreeExponentiallyDecayingReservoir.builder().build());
    private final Timer defaultTimer = new Timer();
    private final Meter meter = new Meter();
    private IMetricsTracker tracker;
    private long value = 1_000;

    @Setup
    public void setUp() {
        // as the core records: HikariCP's own tracker, on the lock-free timer and histograms registered first
        MetricRegistry registry = new MetricRegistry();
        registry.timer("floor.pool.Wait", () -> new Timer(LockFreeExponentiallyDecayingReservoir.builder().build()));
        registry.histogram("floor.pool.Usage",
            () -> new Histogram(LockFreeExponentiallyDecayingReservoir.builder().build()));
        tracker = new CodahaleMetricsTrackerFactory(registry)
            .create("floor", new PoolStats(0) {
                @Override
                protected void update() {
                }
            });
    }

    // a changing value, so that no recording is folded away; costs one add
    private long next() {
        value = (value + 977) & 0xFFFFF;
        return value;
    }

    @Benchmark
    public long baseline() {
        return next();
    }

    /** The fair gate's own work for one borrow and return, with no other thread about. */
    @Benchmark
    public boolean fairSemaphorePlace() throws InterruptedException {
        boolean taken = fairPlaces.tryAcquire(0, TimeUnit.NANOSECONDS);
        fairPlaces.release();
        return taken;
    }

    @Benchmark
    public long atomicIncrement() {
        return atomic.getAndAdd(next());
    }

    @Benchmark
    public void longAdderAdd() {
        adder.add(next());
    }

    @Benchmark
    public long nanoTime() {
        return System.nanoTime() + next();
    }

    /** HdrHistogram's recorder: what the hdr-metrics extension's windowed reservoir does for each value. */
    @Benchmark
    public void hdrRecorder() {
        recorder.recordValue(next());
    }

    /** Metrics' histogram on the lock-free reservoir: {@code Usage}, once a cycle. */
    @Benchmark
    public void histogramUpdate() {
        histogram.update(next());
    }

    /** Metrics' timer on the lock-free reservoir: {@code Wait}, once a cycle. */
    @Benchmark
    public void timerUpdate() {
        timer.update(next(), TimeUnit.NANOSECONDS);
    }

    /** Metrics' timer as it comes (a decaying sample), as HikariCP's own Dropwizard tracker makes it. */
    @Benchmark
    public void defaultTimerUpdate() {
        defaultTimer.update(next(), TimeUnit.NANOSECONDS);
    }

    /** Metrics' meter, which every timer marks: a clock reading and four adds. */
    @Benchmark
    public void meterMark() {
        meter.mark(next() & 1);
    }

    /** The core's metrics for one borrow and one return, as HikariCP calls its tracker. */
    @Benchmark
    public void trackerPerCycle() {
        long nanos = next();
        tracker.recordConnectionAcquiredNanos(nanos);
        tracker.recordConnectionUsageMillis(nanos >> 10);
    }
}
