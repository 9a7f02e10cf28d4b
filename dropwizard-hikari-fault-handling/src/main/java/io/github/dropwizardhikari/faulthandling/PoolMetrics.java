package io.github.dropwizardhikari.faulthandling;

import com.zaxxer.hikari.metrics.IMetricsTracker;
import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import com.zaxxer.hikari.metrics.PoolStats;
import io.github.dropwizardhikari.PoolHooks.Borrow;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * HikariCP's metrics for one pool, passed on to the tracker the core set, and kept true: {@code ConnectionCreation}
 * records the time of the attempt that created a connection (HikariCP 7.1 records every attempt, failed ones too, and
 * through {@link RetryingDataSource} the probe's whole wait during an outage); {@code Wait} and
 * {@code PendingConnections} include borrowers waiting for the pool's first attempt outside HikariCP; the background
 * borrow that keeps the pool trying is no one's and goes unrecorded; {@code ConnectionTimeoutRate} counts every
 * failed borrow once (HikariCP its timeouts, this class the rest). HikariCP records on the thread that does the work,
 * so what a record needs to know travels in a thread-local of this pool's own.
 */
final class PoolMetrics implements MetricsTrackerFactory {
    private final MetricsTrackerFactory hikari;
    private final ThreadLocal<OnThread> onThread = ThreadLocal.withInitial(OnThread::new);
    private final AtomicInteger waitingOutside = new AtomicInteger();
    private final AtomicInteger background = new AtomicInteger();
    private volatile IMetricsTracker tracker = new IMetricsTracker() {
    };

    /** What this thread's next record needs to know. */
    private static final class OnThread {
        private boolean background;
        private boolean timeoutCounted;
        private boolean attemptFailed;
        private long waitedOutsideNanos;
        private long createdMillis = -1;
    }

    PoolMetrics(MetricsTrackerFactory hikari) {
        this.hikari = hikari;
    }

    @Override
    public IMetricsTracker create(String poolName, PoolStats stats) {
        IMetricsTracker created = hikari.create(poolName, new Stats(stats));
        tracker = created;
        return new Tracker(created);
    }

    /** A borrow through the fault handling begins on this thread. */
    void borrowing() {
        OnThread state = onThread.get();
        state.timeoutCounted = false;
        state.waitedOutsideNanos = 0;
    }

    /** The borrow that began on this thread failed: counted, unless HikariCP counted it already. */
    void borrowFailed() {
        OnThread state = onThread.get();
        state.waitedOutsideNanos = 0;
        if (!state.timeoutCounted) {
            state.timeoutCounted = true;
            tracker.recordConnectionTimeout();
        }
    }

    /** Waits outside HikariCP, counted as a borrower waiting, for at most {@code millis}. */
    boolean awaitOutside(CountDownLatch latch, long millis) throws InterruptedException {
        long started = System.nanoTime();
        waitingOutside.incrementAndGet();
        try {
            return latch.await(millis, TimeUnit.MILLISECONDS);
        } finally {
            waitingOutside.decrementAndGet();
            onThread.get().waitedOutsideNanos = System.nanoTime() - started;
        }
    }

    /** The data source's next answer on this thread is a new attempt. */
    void attempting() {
        OnThread state = onThread.get();
        state.createdMillis = -1;
        state.attemptFailed = false;
    }

    /** @param millis how long the attempt that connected took */
    void attemptConnected(long millis) {
        onThread.get().createdMillis = millis;
    }

    void attemptFailed() {
        onThread.get().attemptFailed = true;
    }

    /** Borrows from HikariCP for no one, unrecorded; the calling thread does nothing else. */
    Connection inBackground(Borrow borrow) throws SQLException {
        onThread.get().background = true;
        background.incrementAndGet();
        try {
            return borrow.get();
        } finally {
            background.decrementAndGet();
        }
    }

    private final class Tracker implements IMetricsTracker {
        private final IMetricsTracker delegate;

        Tracker(IMetricsTracker delegate) {
            this.delegate = delegate;
        }

        @Override
        public void recordConnectionCreatedMillis(long connectionCreatedMillis) {
            OnThread state = onThread.get();
            long created = state.createdMillis;
            boolean failed = state.attemptFailed;
            state.createdMillis = -1;
            state.attemptFailed = false;
            if (!failed) {
                delegate.recordConnectionCreatedMillis(created >= 0 ? created : connectionCreatedMillis);
            }
        }

        @Override
        public void recordConnectionAcquiredNanos(long elapsedAcquiredNanos) {
            OnThread state = onThread.get();
            long outside = state.waitedOutsideNanos;
            state.waitedOutsideNanos = 0;
            if (!state.background) {
                delegate.recordConnectionAcquiredNanos(elapsedAcquiredNanos + outside);
            }
        }

        @Override
        public void recordConnectionUsageMillis(long elapsedBorrowedMillis) {
            if (!onThread.get().background) {
                delegate.recordConnectionUsageMillis(elapsedBorrowedMillis);
            }
        }

        @Override
        public void recordConnectionTimeout() {
            OnThread state = onThread.get();
            if (!state.background) {
                state.timeoutCounted = true;
                delegate.recordConnectionTimeout();
            }
        }

        @Override
        public void close() {
            delegate.close();
        }
    }

    /** HikariCP's figures, with the borrowers waiting outside it and without the background borrow. */
    private final class Stats extends PoolStats {
        private final PoolStats pool;

        Stats(PoolStats pool) {
            super(0);
            this.pool = pool;
        }

        @Override
        protected void update() {
            totalConnections = pool.getTotalConnections();
            idleConnections = pool.getIdleConnections();
            activeConnections = pool.getActiveConnections();
            maxConnections = pool.getMaxConnections();
            minConnections = pool.getMinConnections();
            pendingThreads = Math.max(0, pool.getPendingThreads() - background.get()) + waitingOutside.get();
        }
    }
}
