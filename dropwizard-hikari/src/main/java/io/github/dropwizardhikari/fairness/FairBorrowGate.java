package io.github.dropwizardhikari.fairness;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.dropwizardhikari.metrics.PoolMetricsTrackerFactory;
import io.github.dropwizardhikari.metrics.QueueBeforeThePool;
import io.github.dropwizardhikari.metrics.WindowedHdrReservoir;
import io.github.dropwizardhikari.pool.BorrowDeadline;
import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes borrowers wait for a connection in arrival order: HikariCP hands a returned connection to whichever waiting
 * thread gets there first, so under oversubscription some borrowers wait much longer than others.
 *
 * <p>A fair {@link Semaphore} holds one place per connection; a borrower takes a place, then a connection, and gives
 * the place back with the connection ({@link GatedConnection}). {@code maxWaitForConnection} bounds gate and pool
 * together; running out throws HikariCP's own {@link SQLTransientConnectionException} and message, counted by
 * {@code <pool>.pool.ConnectionTimeoutRate}.</p>
 *
 * <p>HikariCP's timeout is per pool, not per borrow, so a borrower that queued arms a {@link BorrowDeadline} for what
 * is left, which interrupts the borrowing thread (HikariCP 7.1 ends its wait on an interrupt with an
 * {@code SQLException}). The borrow stays on the caller's thread, so leak detection and the pool's metrics see it.
 * An interrupt also closes a virtual thread's socket or an NIO channel: at worst the alive-check of the connection
 * about to be handed out, which HikariCP then evicts and replaces.</p>
 *
 * <p>{@code PendingConnections} and {@code Wait} count the gate's queue ({@link QueueBeforeThePool}); in detail,
 * {@code <pool>.pool.GateWaiting} (gauge: borrowers queued now) and {@code <pool>.pool.GateWait} (timer: each queued
 * borrower's wait at the gate).</p>
 */
public final class FairBorrowGate implements QueueBeforeThePool {
    // how long this thread queued before the borrow HikariCP is about to record; set only by a borrower that queued
    private static final ThreadLocal<Long> QUEUED_NANOS = new ThreadLocal<>();

    private final String poolName;
    private final MetricRegistry metrics;
    private final Places places;
    private final Timer wait;
    // borrowers that queued and are inside HikariCP now: while there are none, HikariCP's record of a borrow skips
    // the thread-local lookup (a volatile read in its place on every borrow)
    private final AtomicInteger queuedInPool = new AtomicInteger();
    private final ScheduledThreadPoolExecutor deadlines;
    private int size;

    /** @param size places at the gate: the pool's {@code maxSize} */
    public FairBorrowGate(String poolName, int size, MetricRegistry metrics) {
        Wrappers.load();
        this.poolName = poolName;
        this.metrics = metrics;
        this.places = new Places(size);
        this.size = size;
        this.wait = metrics.register(waitName(poolName), new Timer(new WindowedHdrReservoir()));
        metrics.register(waitingName(poolName), (Gauge<Integer>) this::waiting);
        // its thread starts with the first borrower that queues
        this.deadlines = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, poolName + ":borrow-deadlines");
            thread.setDaemon(true);
            return thread;
        });
        deadlines.setRemoveOnCancelPolicy(true);
    }

    private static String waitName(String poolName) {
        return PoolMetricsTrackerFactory.name(poolName, "GateWait");
    }

    private static String waitingName(String poolName) {
        return PoolMetricsTrackerFactory.name(poolName, "GateWaiting");
    }

    /**
     * Takes a place, waiting in arrival order if need be, then a connection from HikariCP.
     *
     * @param timeoutMillis the longest the whole borrow may take: the pool's connection timeout
     * @return the connection, which gives its place back when closed
     * @throws SQLTransientConnectionException when no connection came in time
     * @throws SQLException                    whatever else HikariCP throws, or when the thread is interrupted
     */
    public Connection borrow(HikariDataSource pool, long timeoutMillis) throws SQLException {
        try {
            // the timed form with no wait honours the queue, where tryAcquire() would jump it; a free place costs
            // no clock reading, which is most of the gate's cost on a pool's fast path
            if (places.tryAcquire(0, TimeUnit.NANOSECONDS)) {
                return fromPool(pool);
            }
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
        return afterQueueing(pool, timeoutMillis);
    }

    /** A borrower with a place at once has the whole timeout left: HikariCP's own wait is the right one. */
    private Connection fromPool(HikariDataSource pool) throws SQLException {
        Connection connection;
        try {
            connection = pool.getConnection();
        } catch (SQLException | RuntimeException e) {
            release();
            throw e;
        }
        return Wrappers.gated(connection, this);
    }

    /** A borrower that queued has only the rest of the timeout left inside HikariCP: its deadline ends the wait. */
    private Connection afterQueueing(HikariDataSource pool, long timeoutMillis) throws SQLException {
        long start = System.nanoTime();
        boolean placed;
        try {
            placed = places.tryAcquire(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            throw interrupted(e);
        } finally {
            wait.update(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
        if (!placed) {
            throw timeout(pool, start, null);
        }
        long queuedNanos = System.nanoTime() - start;
        QUEUED_NANOS.set(queuedNanos);
        BorrowDeadline deadline = BorrowDeadline.arm(deadlines,
            TimeUnit.MILLISECONDS.toNanos(timeoutMillis) - queuedNanos);
        Connection connection;
        queuedInPool.incrementAndGet();
        try {
            connection = pool.getConnection();
        } catch (SQLException | RuntimeException e) {
            boolean expired = deadline.disarm();
            release();
            if (e instanceof SQLTransientConnectionException fromHikari) {
                throw timeout(pool, start, fromHikari);
            }
            if (expired && e instanceof SQLException) {
                // HikariCP's answer to the deadline's interrupt
                throw timeout(pool, start, null);
            }
            throw e;
        } finally {
            queuedInPool.decrementAndGet();
            // HikariCP has recorded the borrow by now; a pool without the bundle's tracker never takes the time
            QUEUED_NANOS.remove();
        }
        // a connection that came as time ran out is the borrower's all the same
        deadline.disarm();
        return Wrappers.gated(connection, this);
    }

    private SQLException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        return new SQLException(poolName + " - Interrupted during connection acquisition", e);
    }

    /** HikariCP's timeout (type, message, SQL state, cause), with the time of the whole borrow. */
    private SQLTransientConnectionException timeout(HikariDataSource pool, long start,
                                                    @Nullable SQLTransientConnectionException fromHikari) {
        String message = poolName + " - Connection is not available, request timed out after "
            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + "ms" + counts(pool.getHikariPoolMXBean());
        if (fromHikari == null) {
            Meter timeouts = metrics.getMeters()
                .get(PoolMetricsTrackerFactory.name(poolName, PoolMetricsTrackerFactory.CONNECTION_TIMEOUT_RATE));
            if (timeouts != null) {
                timeouts.mark();
            }
            return new SQLTransientConnectionException(message);
        }
        SQLTransientConnectionException timeout = new SQLTransientConnectionException(message,
            fromHikari.getSQLState(), fromHikari.getErrorCode(), fromHikari.getCause());
        // a null next exception adds nothing to the chain
        timeout.setNextException(fromHikari.getNextException());
        return timeout;
    }

    private static String counts(@Nullable HikariPoolMXBean pool) {
        if (pool == null) {
            // closed meanwhile
            return "";
        }
        return " (total=" + pool.getTotalConnections() + ", active=" + pool.getActiveConnections() + ", idle="
            + pool.getIdleConnections() + ", waiting=" + pool.getThreadsAwaitingConnection() + ")";
    }

    void release() {
        places.release();
    }

    /** Follows a runtime change of the pool's {@code maxSize}. */
    public synchronized void resize(int newSize) {
        if (newSize > size) {
            places.release(newSize - size);
        } else if (newSize < size) {
            places.reducePermits(size - newSize);
        }
        size = newSize;
    }

    @Override
    public int waiting() {
        return places.getQueueLength();
    }

    @Override
    public long takeQueuedNanos() {
        Long queued = queuedInPool.get() == 0 ? null : QUEUED_NANOS.get();
        if (queued == null) {
            return 0;
        }
        QUEUED_NANOS.remove();
        return queued;
    }

    /** @return whether this thread holds a queued time that no record of a borrow has taken */
    static boolean queuedTimeLeftOnThisThread() {
        return QUEUED_NANOS.get() != null;
    }

    /** @return the pool's size less the connections borrowed through the gate and not yet returned */
    public int freePlaces() {
        return places.availablePermits();
    }

    /**
     * Removes the gate's metrics, so that a pool of the same name can be built again, and ends its deadlines'
     * thread once the deadlines still armed have passed.
     */
    public void unregister() {
        metrics.remove(waitName(poolName));
        metrics.remove(waitingName(poolName));
        deadlines.shutdown();
    }

    @Override
    public String toString() {
        return "FairBorrowGate{pool=" + poolName + ", places=" + size + ", free=" + freePlaces() + ", waiting="
            + waiting() + "}";
    }

    /** A fair semaphore whose places can also be taken away, for a pool that shrinks. */
    private static final class Places extends Semaphore {
        private static final long serialVersionUID = 1L;

        Places(int size) {
            super(size, true);
        }

        @Override
        protected void reducePermits(int reduction) {
            super.reducePermits(reduction);
        }
    }
}
