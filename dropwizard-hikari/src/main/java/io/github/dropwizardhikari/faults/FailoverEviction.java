package io.github.dropwizardhikari.faults;

import com.zaxxer.hikari.HikariPoolMXBean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Evicts every connection of the pool at once on evidence that the server behind it changed, as in a primary
 * failover (Patroni, Aurora, a DNS switch): the other pooled connections point at the same old primary and would
 * fail one by one, or keep failing every write.
 *
 * <p>One session's death is not such evidence: {@code pg_terminate_backend}, {@code idle_session_timeout}, a
 * server's idle timeout or one TCP reset end one session, and only its connection is evicted (by
 * {@link ConnectionLossOverride}). The whole pool goes on:</p>
 * <ul>
 * <li>a write refused as read-only on a pool that is not read-only itself (a demoted primary);</li>
 * <li>connection loss on a second connection within the window after the first (HikariCP reports each connection's
 * loss once, since it retires the connection on its first such error, so two reports are two connections);</li>
 * <li>the end of an outage, in which the pool could not connect at all ({@link
 * io.github.dropwizardhikari.faults.OutageRecovery}).</li>
 * </ul>
 *
 * <p>The eviction is HikariCP's soft eviction: idle connections close at once, connections in use retire when
 * they are returned, and new connections are opened to wherever the URL now leads. One event is one eviction and
 * one WARN: errors within the window after an eviction come from the same event (the requests that were in flight
 * on old connections) and only retire their own connection.</p>
 *
 * <p>Only errors {@link ConnectionLossOverride} classifies as connection loss
 * or read-only refusal reach this class; an ordinary statement error (syntax, constraint, statement timeout)
 * never does.</p>
 */
public final class FailoverEviction implements ConnectionErrorListener {
    private static final Logger LOGGER = LoggerFactory.getLogger(FailoverEviction.class);

    private final String poolName;
    private final boolean enabled;
    private final boolean readOnlyPool;
    private final long windowMillis;
    private final long windowNanos;
    private final LongSupplier nanoTime;
    private final AtomicLong lastEvictionNanos = new AtomicLong();
    private final AtomicLong lastLossNanos = new AtomicLong();
    private final AtomicInteger sameEvent = new AtomicInteger();
    private final AtomicInteger evictions = new AtomicInteger();
    @Nullable
    private volatile HikariPoolMXBean pool;

    /**
     * @param windowMillis how close a second connection's loss must follow the first to count as one event, and
     *                     how long after an eviction further errors belong to it
     */
    public FailoverEviction(String poolName, boolean enabled, boolean readOnlyPool, long windowMillis) {
        this(poolName, enabled, readOnlyPool, windowMillis, System::nanoTime);
    }

    FailoverEviction(String poolName, boolean enabled, boolean readOnlyPool, long windowMillis,
                     LongSupplier nanoTime) {
        this.poolName = poolName;
        this.enabled = enabled;
        this.readOnlyPool = readOnlyPool;
        this.windowMillis = windowMillis;
        this.windowNanos = TimeUnit.MILLISECONDS.toNanos(windowMillis);
        this.nanoTime = nanoTime;
        long longAgo = nanoTime.getAsLong() - windowNanos - 1;
        this.lastEvictionNanos.set(longAgo);
        this.lastLossNanos.set(longAgo);
    }

    /** Starts acting on the running pool. */
    public void attach(HikariPoolMXBean runningPool) {
        this.pool = runningPool;
    }

    public void detach() {
        this.pool = null;
    }

    /** @return how many times the whole pool was evicted */
    public int evictions() {
        return evictions.get();
    }

    /** One connection was lost (and is evicted on its own); a second one within the window evicts the pool. */
    @Override
    public void connectionLost(SQLException e) {
        if (!enabled || pool == null) {
            return;
        }
        long now = nanoTime.getAsLong();
        long previous = lastLossNanos.getAndSet(now);
        if (now - previous < windowNanos) {
            evictAll("a second connection failed within " + windowMillis + " ms of another", e);
        }
    }

    @Override
    public boolean readOnlyRejected(SQLException e) {
        if (!enabled || readOnlyPool) {
            return false;
        }
        evictAll("the database refused a write as read-only", e);
        return true;
    }

    private void evictAll(String what, SQLException e) {
        HikariPoolMXBean running = pool;
        if (!enabled || running == null) {
            return;
        }
        long now = nanoTime.getAsLong();
        long last = lastEvictionNanos.get();
        if (now - last < windowNanos || !lastEvictionNanos.compareAndSet(last, now)) {
            sameEvent.incrementAndGet();
            return;
        }
        int earlier = sameEvent.getAndSet(0);
        int total = running.getTotalConnections();
        running.softEvictConnections();
        evictions.incrementAndGet();
        LOGGER.warn("Pool {}: {} (SQLState {}, error code {}: {}); evicted all {} connections of the pool, those in "
                + "use when they are returned, as after a failover{}", poolName, what, e.getSQLState(),
            e.getErrorCode(), e.getClass().getSimpleName(), total,
            earlier == 0 ? "" : " (" + earlier + " such error(s) after the previous eviction counted as its event)");
    }
}
