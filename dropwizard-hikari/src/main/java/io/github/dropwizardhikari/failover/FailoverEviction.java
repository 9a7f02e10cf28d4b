package io.github.dropwizardhikari.failover;

import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.dropwizardhikari.eviction.ConnectionErrorListener;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Evicts every connection of the pool at once when one of them shows that the database behind it is gone or
 * has become read-only, as in a primary failover (Patroni, Aurora, a DNS switch): the other pooled connections
 * point at the same old primary and would fail one by one, or keep failing every write.
 *
 * <p>The eviction is HikariCP's soft eviction: idle connections close at once, connections in use retire when
 * they are returned, and new connections are opened to wherever the URL now leads. One event is one eviction and
 * one WARN: errors within the quiet period after an eviction come from the same event (the requests that were
 * in flight on old connections) and only retire their own connection. A read-only refusal counts only on a pool
 * that is not read-only itself.</p>
 *
 * <p>Only errors {@link io.github.dropwizardhikari.eviction.ConnectionLossOverride} classifies as connection loss
 * or read-only refusal reach this class; an ordinary statement error (syntax, constraint, statement timeout)
 * never does.</p>
 */
public final class FailoverEviction implements ConnectionErrorListener {
    private static final Logger LOGGER = LoggerFactory.getLogger(FailoverEviction.class);

    private final String poolName;
    private final boolean enabled;
    private final boolean readOnlyPool;
    private final long quietPeriodNanos;
    private final LongSupplier nanoTime;
    private final AtomicLong lastEvictionNanos = new AtomicLong();
    private final AtomicInteger sameEvent = new AtomicInteger();
    private final AtomicInteger evictions = new AtomicInteger();
    @Nullable
    private volatile HikariPoolMXBean pool;

    public FailoverEviction(String poolName, boolean enabled, boolean readOnlyPool, long quietPeriodMillis) {
        this(poolName, enabled, readOnlyPool, quietPeriodMillis, System::nanoTime);
    }

    FailoverEviction(String poolName, boolean enabled, boolean readOnlyPool, long quietPeriodMillis,
                     LongSupplier nanoTime) {
        this.poolName = poolName;
        this.enabled = enabled;
        this.readOnlyPool = readOnlyPool;
        this.quietPeriodNanos = TimeUnit.MILLISECONDS.toNanos(quietPeriodMillis);
        this.nanoTime = nanoTime;
        this.lastEvictionNanos.set(nanoTime.getAsLong() - quietPeriodNanos - 1);
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

    @Override
    public void connectionLost(SQLException e) {
        evictAll("a connection failed", e);
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
        if (now - last < quietPeriodNanos || !lastEvictionNanos.compareAndSet(last, now)) {
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
