package io.github.dropwizardhikari.holders;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.dropwizardhikari.PoolHooks;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The holds of one running pool: each connection borrowed through the pool's data source and not yet returned,
 * with its holder, thread and start.
 *
 * <p>A hold begins with the core's {@link #borrowed} and ends with its {@link #returned} for the same connection,
 * on whichever thread closes it (a connection HikariCP closed itself while lent included: its hold ends when the
 * application closes it). Once a second a timer warns once about each hold past {@code leakDetectionThreshold}, which
 * acts on time alone, and keeps the registry within {@link #bound()} entries, the newest, of its {@link HoldSlots}
 * (four times the pool's size and 64; a borrow that finds every slot taken, after a runtime resize far beyond, is not
 * recorded): only connections the application never closes outnumber the pool. A hold that ends past the threshold
 * before the timer saw it is warned about as it ends.</p>
 */
final class PoolHolds implements PoolHooks {
    private static final Logger LOGGER = LoggerFactory.getLogger(PoolHolds.class);
    private static final long SWEEP_MILLIS = 1_000;
    // beyond the pool's resource methods and tasks, a runaway source of names shares one series
    static final int MAX_SERIES = 500;

    private final String poolName;
    private final Labels labels;
    private final HoldersExtension settings;
    private final MetricRegistry metrics;
    private final int configuredSize;
    private final HoldSlots holds;
    private final Map<String, Series> series = new ConcurrentHashMap<>();
    private final AtomicLong nextReportNanos = new AtomicLong(System.nanoTime());
    private final AtomicLong timeoutsSinceReport = new AtomicLong();
    private final ScheduledThreadPoolExecutor sweeper;

    @Nullable
    private volatile HikariDataSource pool;

    PoolHolds(String poolName, int size, HoldersExtension settings, Labels labels, MetricRegistry metrics) {
        this.poolName = poolName;
        this.configuredSize = size;
        this.settings = settings;
        this.labels = labels;
        this.metrics = metrics;
        this.holds = new HoldSlots(4 * size + 64);
        this.sweeper = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, poolName + ":holders");
            thread.setDaemon(true);
            return thread;
        });
    }

    String poolName() {
        return poolName;
    }

    @Nullable
    HikariDataSource pool() {
        return pool;
    }

    @Override
    public void started(HikariDataSource pool) {
        this.pool = pool;
        sweeper.scheduleWithFixedDelay(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** On the borrower's thread, whatever the extension's place in the list: the holder is the borrower's label. */
    @Override
    public void borrowed(Connection connection) {
        Labels.State thread = labels.state();
        Holder holder = thread.holder();
        Throwable stack = settings.isStackAtBorrow() ? new Throwable("the borrow by " + holder.name()) : null;
        Series counted = series(holder.series());
        Hold hold = new Hold(connection, holder, counted, Thread.currentThread().getName(), System.nanoTime(), stack);
        int slot = holds.add(hold, thread.slotHint);
        if (slot >= 0) {
            hold.slot = slot;
            thread.slotHint = slot;
        }
        counted.borrowed(thread.stripe);
    }

    /** Every failed borrow, another extension's refusal included, whatever the extension's place in the list. */
    @Override
    public SQLException borrowFailed(SQLException failure) {
        return failure instanceof SQLTransientConnectionException timeout ? timedOut(timeout) : failure;
    }

    /** The connection {@link #borrowed} had is back, on whichever thread closed it: its hold ends. */
    @Override
    public void returned(Connection connection) {
        Labels.State thread = labels.state();
        // the closing thread's last slot first: most connections are closed by their borrower
        Hold hold = holds.find(connection, thread.slotHint);
        if (hold != null) {
            end(hold, TimeUnit.NANOSECONDS.toMillis(hold.heldNanos(System.nanoTime())), thread.stripe);
        }
    }

    /** @return whether this call ended the hold */
    private boolean end(Hold hold, long heldMillis, int stripe) {
        if (!holds.remove(hold)) {
            return false;
        }
        hold.series.held(heldMillis, stripe);
        // a hold that ended between two rounds of the timer past the threshold is warned about now
        long threshold = leakThresholdMillis();
        if (threshold > 0 && heldMillis >= threshold) {
            warnLeak(hold, "was", TimeUnit.MILLISECONDS.toNanos(heldMillis), threshold);
        }
        return true;
    }

    private Series series(String name) {
        Series known = series.get(name);
        if (known != null) {
            return known;
        }
        String counted = series.size() < MAX_SERIES ? name : Holder.OTHER;
        return series.computeIfAbsent(counted, this::register);
    }

    private Series register(String name) {
        // a dot would split the name into levels in Graphite and the like
        String prefix = MetricRegistry.name(poolName, "pool", "Holders", name.replace('.', '_'));
        // about the last 1,024 holds, in windows by thread: cheaper per return than a decaying reservoir's skip list
        return new Series(prefix, metrics.histogram(MetricRegistry.name(prefix, "Usage"),
            StripedWindowReservoir.WindowHistogram::new),
            metrics.counter(MetricRegistry.name(prefix, "Borrows"), StripedCounter::new));
    }

    /** HikariCP's timeout, its type and first line unchanged, with the holders now on the lines after it. */
    private SQLException timedOut(SQLTransientConnectionException e) {
        List<String> lines = summary(System.nanoTime());
        long timeouts = timeoutsSinceReport.incrementAndGet();
        report(timeouts, lines);
        if (e.getClass() != SQLTransientConnectionException.class) {
            // a type of another extension's, which this one cannot build again
            return e;
        }
        StringBuilder message = new StringBuilder(String.valueOf(e.getMessage()));
        message.append(lines.isEmpty() ? "\nNo connection of the pool is held through its data source now."
            : "\nHolders now, longest first:");
        lines.forEach(line -> message.append("\n  ").append(line));
        SQLTransientConnectionException named = new SQLTransientConnectionException(message.toString(),
            e.getSQLState(), e.getErrorCode(), e.getCause());
        named.setStackTrace(e.getStackTrace());
        for (Throwable suppressed : e.getSuppressed()) {
            named.addSuppressed(suppressed);
        }
        return named;
    }

    /** Logs the holders at most once per {@code logInterval}, with the timeouts since the last report. */
    private void report(long timeouts, List<String> lines) {
        long now = System.nanoTime();
        long due = nextReportNanos.get();
        if (now - due < 0 || !nextReportNanos.compareAndSet(due, now + settings.getLogInterval().toNanoseconds())) {
            return;
        }
        timeoutsSinceReport.addAndGet(-timeouts);
        if (LOGGER.isWarnEnabled()) {
            LOGGER.warn("Pool {}: {} borrow(s) timed out since the last report{}", poolName, timeouts,
                lines.isEmpty() ? "; no connection is held through its data source"
                    : "; holders now, longest first:\n  " + String.join("\n  ", lines));
        }
    }

    /** @return a line per holder, longest hold first, at most {@code summaryLines} and one for the rest */
    List<String> summary(long nowNanos) {
        Map<String, long[]> byHolder = new LinkedHashMap<>();
        for (Hold hold : holds.all()) {
            long[] figures = byHolder.computeIfAbsent(hold.holder.name(), name -> new long[2]);
            figures[0]++;
            figures[1] = Math.max(figures[1], hold.heldNanos(nowNanos));
        }
        List<Map.Entry<String, long[]>> sorted = new ArrayList<>(byHolder.entrySet());
        sorted.sort(Comparator.comparingLong((Map.Entry<String, long[]> entry) -> entry.getValue()[1]).reversed());
        List<String> lines = new ArrayList<>();
        int shown = Math.min(sorted.size(), settings.getSummaryLines());
        for (Map.Entry<String, long[]> entry : sorted.subList(0, shown)) {
            long count = entry.getValue()[0];
            lines.add(entry.getKey() + ": " + count + (count == 1 ? " connection" : " connections") + ", longest "
                + seconds(entry.getValue()[1]));
        }
        if (shown < sorted.size()) {
            long connections = sorted.subList(shown, sorted.size()).stream().mapToLong(entry -> entry.getValue()[0])
                .sum();
            lines.add("and " + (sorted.size() - shown) + " more holder(s) of " + connections + " connection(s)");
        }
        return lines;
    }

    /** @return the holds now, longest first */
    List<Hold> holds() {
        List<Hold> now = holds.all();
        now.sort(Comparator.comparingLong(hold -> hold.startNanos));
        return now;
    }

    static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f s", nanos / 1e9);
    }

    /** Warns about leaks, and bounds the registry. */
    void sweep() {
        long threshold = leakThresholdMillis();
        long now = System.nanoTime();
        List<Hold> open = holds();
        if (threshold > 0) {
            for (Hold hold : open) {
                if (hold.heldNanos(now) >= TimeUnit.MILLISECONDS.toNanos(threshold)) {
                    warnLeak(hold, "has been", hold.heldNanos(now), threshold);
                }
            }
        }
        // only connections the application never closed outnumber the pool
        for (int i = 0; i < open.size() - bound(); i++) {
            holds.remove(open.get(i));
        }
    }

    /** @return the pool's {@code leakDetectionThreshold} now (HikariCP lets it change at run time), 0 for none */
    private long leakThresholdMillis() {
        HikariDataSource running = pool;
        return running == null ? 0 : running.getHikariConfigMXBean().getLeakDetectionThreshold();
    }

    private void warnLeak(Hold hold, String tense, long heldNanos, long thresholdMillis) {
        if (hold.warnOnce()) {
            String thread = "thread \"" + hold.thread + "\"";
            // a hold outside requests and tasks is named after its thread already
            String by = hold.holder.name().equals(thread) ? thread : hold.holder.name() + " on " + thread;
            LOGGER.warn("Pool {}: a connection borrowed by {} {} held for {}, past leakDetectionThreshold ({} ms); "
                + "HikariCP logs the stack of its borrow", poolName, by, tense, seconds(heldNanos), thresholdMillis);
        }
    }

    private int bound() {
        HikariDataSource running = pool;
        int size = running == null ? configuredSize : running.getHikariConfigMXBean().getMaximumPoolSize();
        return Math.min(2 * Math.max(size, configuredSize) + 16, holds.capacity() / 2);
    }

    /** @return HikariCP's counts, or null before the pool started */
    @Nullable
    HikariPoolMXBean counts() {
        HikariDataSource running = pool;
        return running == null ? null : running.getHikariPoolMXBean();
    }

    @Override
    public void stopping() {
        settings.forget(this);
        sweeper.shutdownNow();
    }

    @Override
    public void stopped() {
        series.values().forEach(known -> {
            metrics.remove(MetricRegistry.name(known.prefix, "Usage"));
            metrics.remove(MetricRegistry.name(known.prefix, "Borrows"));
        });
        series.clear();
        holds.clear();
    }

    /** The metrics of one holder: striped ones, unless another one registered them first under their names. */
    record Series(String prefix, Histogram usage, Counter borrows) {
        void borrowed(int stripe) {
            if (borrows instanceof StripedCounter striped) {
                striped.inc(stripe);
            } else {
                borrows.inc();
            }
        }

        void held(long millis, int stripe) {
            if (usage instanceof StripedWindowReservoir.WindowHistogram striped) {
                striped.update(stripe, millis);
            } else {
                usage.update(millis);
            }
        }
    }
}
