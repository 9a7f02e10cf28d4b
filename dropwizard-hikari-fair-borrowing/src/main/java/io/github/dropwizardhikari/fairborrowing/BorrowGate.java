package io.github.dropwizardhikari.fairborrowing;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.metrics.IMetricsTracker;
import io.github.dropwizardhikari.PoolHooks;
import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The fair borrow gate of one running pool: a fair {@link Semaphore} with one place per connection, taken before
 * HikariCP's {@code getConnection()} and given back when HikariCP records the connection's return.
 *
 * <p>HikariCP 7.1 records every return ({@code recordConnectionUsageMillis}) in {@code recycle()}, before the
 * connection goes back to its bag, whichever way the application closed it: the connection itself, a statement's
 * {@code getConnection()}, after an abort or an eviction. So the connections handed out are HikariCP's own, and no
 * thread is ever interrupted: a borrower waits at the gate for at most the pool's connection timeout, then, like any
 * HikariCP borrower, inside HikariCP (only when HikariCP has no connection to give for a place: the database is
 * down, or connections are being replaced).</p>
 *
 * <p>A borrow that did not pass the gate (HikariCP's own {@code ConnectivityCheck}, or the {@link HikariDataSource}
 * used directly) is recorded on its return all the same, so it takes a place when HikariCP records its borrow,
 * which it does on the borrowing thread; a borrow that passed the gate is marked on that thread until then. Without
 * that, every such borrow would add a place for good.</p>
 *
 * <p>Figures: {@code Wait} includes the time queued at the gate, {@code PendingConnections} the borrowers queued at
 * it, and a borrower refused at the gate counts in {@code ConnectionTimeoutRate}. In detail,
 * {@code <pool>.pool.GateWaiting} (gauge: borrowers queued now) and {@code <pool>.pool.GateWait} (timer: each queued
 * borrower's time at the gate).</p>
 */
final class BorrowGate implements PoolHooks {
    private static final Long AT_ONCE = 0L;
    private static final IMetricsTracker RECORDS_NOTHING = new IMetricsTracker() {
    };
    // more places than any pool has borrowers, far from the semaphore's limit of Integer.MAX_VALUE
    private static final int OPEN_WIDE = 1 << 30;

    private final String poolName;
    private final MetricRegistry metrics;
    private final Places places;
    private final long configuredTimeoutMillis;
    private final Timer gateWait;
    // on the borrowing thread, from the gate to HikariCP's record of the borrow: the nanoseconds queued at the gate
    private final ThreadLocal<Long> passed = new ThreadLocal<>();

    private volatile IMetricsTracker recording = RECORDS_NOTHING;
    @Nullable
    private volatile HikariDataSource pool;
    // written under this object's lock
    private volatile int size;

    BorrowGate(String poolName, int size, long timeoutMillis, MetricRegistry metrics) {
        this.poolName = poolName;
        this.metrics = metrics;
        this.places = new Places(size);
        this.size = size;
        this.configuredTimeoutMillis = timeoutMillis;
        this.gateWait = metrics.register(waitName(), new Timer(LockFreeExponentiallyDecayingReservoir.builder()
            .build()));
        metrics.register(waitingName(), (Gauge<Integer>) this::waiting);
    }

    private String waitName() {
        return MetricRegistry.name(poolName, "pool", "GateWait");
    }

    private String waitingName() {
        return MetricRegistry.name(poolName, "pool", "GateWaiting");
    }

    /** @return HikariCP's tracker as the gate sees it: every record reaches {@code recording} */
    IMetricsTracker tracker(IMetricsTracker recording) {
        this.recording = recording;
        return new Tracker(recording);
    }

    @Override
    public void started(HikariDataSource pool) {
        this.pool = pool;
        followResize();
    }

    /**
     * Takes a place, waiting in arrival order if need be, then a connection from the rest of the borrow.
     *
     * @throws SQLTransientConnectionException when no place came within the connection timeout
     */
    @Override
    public Connection borrow(Borrow next) throws SQLException {
        followResize();
        passed.set(enter());
        boolean failed = true;
        try {
            Connection connection = next.get();
            failed = false;
            return connection;
        } finally {
            if (passed.get() != null) {
                // HikariCP recorded no borrow, so no return will give the place back (a borrow it fails after
                // recording it, which HikariCP 7.1 does not do, keeps its place: never a place too many)
                passed.remove();
                if (failed) {
                    places.release();
                }
            }
        }
    }

    /** @return the nanoseconds this borrower queued at the gate */
    private Long enter() throws SQLException {
        try {
            // the timed form with no wait honours the queue, where tryAcquire() would jump it; a free place costs
            // no clock reading
            if (places.tryAcquire(0, TimeUnit.NANOSECONDS)) {
                return AT_ONCE;
            }
            long start = System.nanoTime();
            boolean placed = places.tryAcquire(timeoutMillis(), TimeUnit.MILLISECONDS);
            long queued = System.nanoTime() - start;
            gateWait.update(queued, TimeUnit.NANOSECONDS);
            if (!placed) {
                recording.recordConnectionTimeout();
                throw refused(queued);
            }
            return queued;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException(poolName + " - Interrupted during connection acquisition", e);
        }
    }

    private long timeoutMillis() {
        HikariDataSource running = pool;
        return running == null ? configuredTimeoutMillis : running.getHikariConfigMXBean().getConnectionTimeout();
    }

    /** HikariCP's own timeout: its type and message, with the gate's queue among the waiting. */
    private SQLTransientConnectionException refused(long queuedNanos) {
        HikariDataSource running = pool;
        HikariPoolMXBean counts = running == null ? null : running.getHikariPoolMXBean();
        String message = poolName + " - Connection is not available, request timed out after "
            + TimeUnit.NANOSECONDS.toMillis(queuedNanos) + "ms";
        if (counts != null) {
            message += " (total=" + counts.getTotalConnections() + ", active=" + counts.getActiveConnections()
                + ", idle=" + counts.getIdleConnections() + ", waiting="
                + (counts.getThreadsAwaitingConnection() + waiting()) + ")";
        }
        return new SQLTransientConnectionException(message);
    }

    /** HikariCP is recording a borrow, on the borrowing thread. */
    private long acquired() {
        Long queued = passed.get();
        if (queued == null) {
            // a borrow that did not pass the gate: its return gives a place back all the same
            places.take();
            return 0;
        }
        passed.remove();
        return queued;
    }

    /** HikariCP is recording a return, before the connection goes back to its bag. */
    private void returned() {
        places.release();
        followResize();
    }

    /** Follows a runtime change of {@code maxSize} (JMX, a resize task) at the next borrow or return. */
    private void followResize() {
        HikariDataSource running = pool;
        if (running != null && running.getHikariConfigMXBean().getMaximumPoolSize() != size) {
            resize(running.getHikariConfigMXBean().getMaximumPoolSize());
        }
    }

    private synchronized void resize(int newSize) {
        if (newSize > size) {
            places.release(newSize - size);
        } else if (newSize < size) {
            places.reducePermits(size - newSize);
        }
        size = newSize;
    }

    /** @return borrowers queued at the gate now */
    int waiting() {
        return places.getQueueLength();
    }

    /** @return the pool's size less the connections borrowed and not yet returned; negative after a shrink */
    int freePlaces() {
        return places.availablePermits();
    }

    @Override
    public void stopping() {
        metrics.remove(waitName());
        metrics.remove(waitingName());
    }

    /** Lets whoever still queues through, to HikariCP's own refusal of a closed pool. */
    @Override
    public void stopped() {
        places.release(OPEN_WIDE);
    }

    @Override
    public String toString() {
        return "BorrowGate{pool=" + poolName + ", places=" + size + ", free=" + freePlaces() + ", waiting="
            + waiting() + "}";
    }

    /** Every record goes on to HikariCP's tracker; borrows and returns move the gate's places first. */
    private final class Tracker implements IMetricsTracker {
        private final IMetricsTracker recording;

        Tracker(IMetricsTracker recording) {
            this.recording = recording;
        }

        @Override
        public void recordConnectionCreatedMillis(long connectionCreatedMillis) {
            recording.recordConnectionCreatedMillis(connectionCreatedMillis);
        }

        @Override
        public void recordConnectionAcquiredNanos(long elapsedAcquiredNanos) {
            recording.recordConnectionAcquiredNanos(elapsedAcquiredNanos + acquired());
        }

        @Override
        public void recordConnectionUsageMillis(long elapsedBorrowedMillis) {
            returned();
            recording.recordConnectionUsageMillis(elapsedBorrowedMillis);
        }

        @Override
        public void recordConnectionTimeout() {
            recording.recordConnectionTimeout();
        }

        @Override
        public void close() {
            recording.close();
        }
    }

    /** A fair semaphore whose places can also be taken without waiting, below zero if need be. */
    private static final class Places extends Semaphore {
        private static final long serialVersionUID = 1L;

        Places(int size) {
            super(size, true);
        }

        void take() {
            reducePermits(1);
        }

        @Override
        protected void reducePermits(int reduction) {
            super.reducePermits(reduction);
        }
    }
}
