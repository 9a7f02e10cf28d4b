package io.github.dropwizardhikari.fairness;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.dropwizardhikari.metrics.QueueBeforeThePool;
import io.github.dropwizardhikari.metrics.WindowedHdrReservoir;
import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Makes borrowers wait for a connection in arrival order.
 *
 * <p>HikariCP hands a returned connection to whichever waiting thread gets there first, so under
 * oversubscription some borrowers wait much longer than others. The gate puts a fair {@link Semaphore} with one
 * place per connection in front of the pool: a borrower takes a place (queueing in arrival order when there is
 * none), then takes a connection from HikariCP, and gives the place back when it gives the connection back
 * ({@link GatedConnection}). While places are free the gate costs an uncontended semaphore operation and no wait.</p>
 *
 * <p>{@code maxWaitForConnection} bounds the whole borrow: HikariCP gets only what is left of it after the gate.
 * A borrower that runs out of time gets the same {@link SQLTransientConnectionException}, with the same message, as
 * from HikariCP's own timeout, and {@code <pool>.pool.ConnectionTimeoutRate} counts it.</p>
 *
 * <p>HikariCP's public API has one timeout per pool, not per borrow: {@code getConnection()} waits up to
 * {@code connectionTimeout}. A borrower that finds a free place has all of it left and simply calls it. A borrower
 * that queued arms a {@link BorrowDeadline} for what is left: when that passes, the deadline interrupts the
 * borrowing thread (the caller's own, never one of HikariCP's), HikariCP (7.1.0) ends its interruptible wait for a
 * connection with an {@code SQLException}, and the gate clears its interrupt and throws the timeout. The borrow
 * stays on the borrowing thread, so HikariCP's leak detection records that thread's stack and the pool's metrics
 * count its wait. One daemon thread per pool runs the deadlines, started by the first borrower that queues.</p>
 *
 * <p>An interrupt also closes the socket a virtual thread (JDK 21+) is blocked in, or an NIO channel on any thread.
 * Inside HikariCP's borrow that can only be the alive-check of the idle connection it is about to hand out: the
 * connection then counts as dead, and HikariCP evicts it and opens another. Nothing else is lost.</p>
 *
 * <p>A borrower queued at the gate is waiting for a connection, and the pool's figures say so: the pool's
 * {@code PendingConnections} counts it and its {@code Wait} records the whole wait, gate and HikariCP together
 * ({@link QueueBeforeThePool}). As detail: {@code <pool>.pool.GateWaiting} (gauge: borrowers queued at the gate
 * now) and {@code <pool>.pool.GateWait} (timer: how long each borrower that found no free place queued).</p>
 */
public final class FairBorrowGate implements QueueBeforeThePool {
    // how long this thread queued before the borrow HikariCP is about to record; set only by a borrower that queued
    private static final ThreadLocal<Long> QUEUED_NANOS = new ThreadLocal<>();

    private final String poolName;
    private final MetricRegistry metrics;
    private final Places places;
    private final Timer wait;
    private final ScheduledThreadPoolExecutor deadlines;
    private int size;

    /**
     * @param poolName the pool's name, for messages and metric names
     * @param size     places at the gate: the pool's {@code maxSize}
     * @param metrics  where the gate's metrics go
     */
    public FairBorrowGate(String poolName, int size, MetricRegistry metrics) {
        Wrappers.load();
        this.poolName = poolName;
        this.metrics = metrics;
        this.places = new Places(size);
        this.size = size;
        this.wait = metrics.register(waitName(poolName),
            new Timer(new WindowedHdrReservoir()));
        metrics.register(waitingName(poolName), (Gauge<Integer>) this::waiting);
        // its one thread starts with the first borrower that queues
        this.deadlines = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, poolName + ":borrow-deadlines");
            thread.setDaemon(true);
            return thread;
        });
        deadlines.setRemoveOnCancelPolicy(true);
    }

    public static String waitName(String poolName) {
        return MetricRegistry.name(poolName, "pool", "GateWait");
    }

    public static String waitingName(String poolName) {
        return MetricRegistry.name(poolName, "pool", "GateWaiting");
    }

    /**
     * Takes a place, waiting in arrival order if need be, then a connection from HikariCP.
     *
     * @param pool          HikariCP's data source; its pool bean counts the borrowers queued here among those
     *                      waiting, as every reader of it does
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
        try {
            if (!queue(timeoutMillis, start)) {
                throw timeout(pool, start, null);
            }
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
        long queuedNanos = System.nanoTime() - start;
        QUEUED_NANOS.set(queuedNanos);
        BorrowDeadline deadline = BorrowDeadline.arm(deadlines,
            TimeUnit.MILLISECONDS.toNanos(timeoutMillis) - queuedNanos);
        Connection connection;
        try {
            connection = pool.getConnection();
        } catch (SQLException | RuntimeException e) {
            boolean expired = deadline.disarm();
            QUEUED_NANOS.remove();
            release();
            if (e instanceof SQLTransientConnectionException) {
                throw timeout(pool, start, (SQLTransientConnectionException) e);
            }
            if (expired && e instanceof SQLException) {
                // HikariCP's answer to the deadline's interrupt
                throw timeout(pool, start, null);
            }
            throw e;
        }
        // a connection that came as time ran out is the borrower's all the same
        deadline.disarm();
        return Wrappers.gated(connection, this);
    }

    private boolean queue(long timeoutMillis, long start) throws InterruptedException {
        try {
            long left = TimeUnit.MILLISECONDS.toNanos(timeoutMillis) - (System.nanoTime() - start);
            return places.tryAcquire(left, TimeUnit.NANOSECONDS);
        } finally {
            wait.update(System.nanoTime() - start, TimeUnit.NANOSECONDS);
        }
    }

    private SQLException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        return new SQLException(poolName + " - Interrupted during connection acquisition", e);
    }

    /**
     * HikariCP's timeout, with the time of the whole borrow: the same type, message, SQL state and cause.
     */
    private SQLTransientConnectionException timeout(HikariDataSource pool, long start,
                                                    @Nullable SQLTransientConnectionException fromHikari) {
        if (fromHikari == null) {
            Meter timeouts = metrics.getMeters().get(MetricRegistry.name(poolName, "pool", "ConnectionTimeoutRate"));
            if (timeouts != null) {
                timeouts.mark();
            }
        }
        String message = poolName + " - Connection is not available, request timed out after "
            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + "ms" + counts(pool.getHikariPoolMXBean());
        if (fromHikari == null) {
            return new SQLTransientConnectionException(message);
        }
        SQLTransientConnectionException timeout = new SQLTransientConnectionException(message,
            fromHikari.getSQLState(), fromHikari.getErrorCode(), fromHikari.getCause());
        if (fromHikari.getNextException() != null) {
            timeout.setNextException(fromHikari.getNextException());
        }
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

    /**
     * Follows a runtime change of the pool's {@code maxSize}: one place per connection.
     */
    public synchronized void resize(int newSize) {
        if (newSize > size) {
            places.release(newSize - size);
        } else if (newSize < size) {
            places.reducePermits(size - newSize);
        }
        size = newSize;
    }

    /**
     * @return borrowers queued at the gate now (the semaphore's own count of its queue)
     */
    @Override
    public int waiting() {
        return places.getQueueLength();
    }

    @Override
    public long takeQueuedNanos() {
        Long queued = QUEUED_NANOS.get();
        if (queued == null) {
            return 0;
        }
        QUEUED_NANOS.remove();
        return queued;
    }

    /**
     * @return free places: the pool's size less the connections borrowed through the gate and not yet returned
     */
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
