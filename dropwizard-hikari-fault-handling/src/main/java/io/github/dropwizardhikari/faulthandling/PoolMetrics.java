package io.github.dropwizardhikari.faulthandling;

import com.zaxxer.hikari.metrics.IMetricsTracker;
import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import com.zaxxer.hikari.metrics.PoolStats;
import io.github.dropwizardhikari.PoolHooks.Borrow;
import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * HikariCP's metrics for one pool, passed on to the tracker the core set, each figure recorded where it is known:
 * <ul>
 * <li>{@code ConnectionCreation}, through a {@link RetryingDataSource}, by that data source for each connection it
 * makes (HikariCP 7.1 records every attempt, failed ones too, and would time the probe's whole wait during an
 * outage); HikariCP's own records are then left out;</li>
 * <li>{@code ConnectionTimeoutRate}: HikariCP counts the timeouts it raises; {@link DatabaseOutage} every other
 * failed borrow, through {@link #borrowFailed}, its own fast failures included;</li>
 * <li>{@code Wait}, for a borrower that first waited outside HikariCP for the pool's first attempt: HikariCP's
 * record of the borrow with the time {@link DatabaseOutage} measured outside it added. HikariCP's tracker call names
 * no borrow, only its thread, so that time waits in a thread-local for the record of the borrow it hands over
 * ({@link #borrowAfterWaitingOutside}); one record per borrow keeps every tracker wrapped around this one whole;</li>
 * <li>{@code PendingConnections}: HikariCP's waiting borrowers, with those waiting outside it and without the
 * background borrow that keeps the pool trying; that borrow, no one's, is not recorded at all.</li>
 * </ul>
 */
final class PoolMetrics implements MetricsTrackerFactory {
    private final MetricsTrackerFactory hikari;
    // the time the borrower on this thread waited outside HikariCP, for HikariCP's record of its borrow
    private final ThreadLocal<long[]> waitedOutside = ThreadLocal.withInitial(() -> new long[1]);
    private final AtomicInteger outside = new AtomicInteger();
    private final AtomicInteger background = new AtomicInteger();
    private volatile boolean creationRecordedHere;
    @Nullable
    private volatile Thread backgroundThread;
    private volatile IMetricsTracker tracker = new IMetricsTracker() {
    };

    PoolMetrics(MetricsTrackerFactory hikari) {
        this.hikari = hikari;
    }

    @Override
    public IMetricsTracker create(String poolName, PoolStats stats) {
        IMetricsTracker created = hikari.create(poolName, new Stats(stats));
        tracker = created;
        return new Tracker(created);
    }

    /** HikariCP connects through a {@link RetryingDataSource}, which records each connection it makes. */
    void recordCreationsHere() {
        creationRecordedHere = true;
    }

    /** @param millis how long the attempt that made a connection took */
    void connectionCreated(long millis) {
        tracker.recordConnectionCreatedMillis(millis);
    }

    /** A borrow failed where HikariCP did not count it. */
    void borrowFailed() {
        tracker.recordConnectionTimeout();
    }

    /** Waits outside HikariCP, counted as a borrower waiting, for at most {@code millis}. */
    boolean awaitOutside(CountDownLatch latch, long millis) throws InterruptedException {
        outside.incrementAndGet();
        try {
            return latch.await(millis, TimeUnit.MILLISECONDS);
        } finally {
            outside.decrementAndGet();
        }
    }

    /**
     * Borrows for a borrower that has waited {@code waitedNanos} outside HikariCP: HikariCP's record of the borrow
     * holds that wait too, as it would have had the borrower waited inside.
     */
    Connection borrowAfterWaitingOutside(long waitedNanos, Borrow borrow) throws SQLException {
        long[] waited = waitedOutside.get();
        waited[0] = waitedNanos;
        try {
            return borrow.get();
        } finally {
            waited[0] = 0;
        }
    }

    /** Borrows from HikariCP for no one, unrecorded; {@code thread} borrows for no one else. */
    Connection inBackground(Borrow borrow) throws SQLException {
        backgroundThread = Thread.currentThread();
        background.incrementAndGet();
        try {
            return borrow.get();
        } finally {
            background.decrementAndGet();
        }
    }

    private boolean onBackgroundThread() {
        return Thread.currentThread() == backgroundThread;
    }

    private final class Tracker implements IMetricsTracker {
        private final IMetricsTracker delegate;

        Tracker(IMetricsTracker delegate) {
            this.delegate = delegate;
        }

        @Override
        public void recordConnectionCreatedMillis(long connectionCreatedMillis) {
            if (!creationRecordedHere) {
                delegate.recordConnectionCreatedMillis(connectionCreatedMillis);
            }
        }

        @Override
        public void recordConnectionAcquiredNanos(long elapsedAcquiredNanos) {
            if (!onBackgroundThread()) {
                long[] waited = waitedOutside.get();
                long outsideNanos = waited[0];
                waited[0] = 0;
                delegate.recordConnectionAcquiredNanos(elapsedAcquiredNanos + outsideNanos);
            }
        }

        @Override
        public void recordConnectionUsageMillis(long elapsedBorrowedMillis) {
            if (!onBackgroundThread()) {
                delegate.recordConnectionUsageMillis(elapsedBorrowedMillis);
            }
        }

        @Override
        public void recordConnectionTimeout() {
            if (!onBackgroundThread()) {
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
            pendingThreads = Math.max(0, pool.getPendingThreads() - background.get()) + outside.get();
        }
    }
}
