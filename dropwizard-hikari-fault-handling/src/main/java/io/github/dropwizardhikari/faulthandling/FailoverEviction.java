package io.github.dropwizardhikari.faulthandling;

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
 * Soft-evicts the whole pool on evidence that the server behind it changed, as in a failover (Patroni, Aurora, a DNS
 * switch), since the other connections point at the old primary: a write refused as read-only on a pool that is not
 * read-only, or a second connection lost within the window (the connection that threw is evicted on its first such
 * error, so two reports are two connections). One lost session only evicts its own connection.
 *
 * <p>One event is one eviction and one WARN: errors within the window after it come from requests in flight on old
 * connections.</p>
 */
final class FailoverEviction {
    private static final Logger LOGGER = LoggerFactory.getLogger(FailoverEviction.class);

    private final String poolName;
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
    @Nullable
    private volatile ServerRole role;

    /**
     * @param windowMillis how close a second connection's loss must follow the first to count as one event, and
     *                     how long after an eviction further errors belong to it
     */
    FailoverEviction(String poolName, boolean readOnlyPool, long windowMillis) {
        this(poolName, readOnlyPool, windowMillis, System::nanoTime);
    }

    FailoverEviction(String poolName, boolean readOnlyPool, long windowMillis, LongSupplier nanoTime) {
        this.poolName = poolName;
        this.readOnlyPool = readOnlyPool;
        this.windowMillis = windowMillis;
        this.windowNanos = TimeUnit.MILLISECONDS.toNanos(windowMillis);
        this.nanoTime = nanoTime;
        long longAgo = nanoTime.getAsLong() - windowNanos - 1;
        this.lastEvictionNanos.set(longAgo);
        this.lastLossNanos.set(longAgo);
    }

    void attach(HikariPoolMXBean runningPool) {
        this.pool = runningPool;
    }

    void detach() {
        this.pool = null;
    }

    /** @return how many times the whole pool was evicted */
    int evictions() {
        return evictions.get();
    }

    /** A connection of the pool failed at the connection level; it is evicted. */
    void connectionLost(SQLException e) {
        if (pool == null) {
            return;
        }
        long now = nanoTime.getAsLong();
        long previous = lastLossNanos.getAndSet(now);
        if (now - previous < windowNanos) {
            evictAll("a second connection failed within " + windowMillis + " ms of another", e);
        }
    }

    /**
     * The server refused a write as read-only.
     *
     * @return whether the connection should be evicted
     */
    boolean readOnlyRejected(SQLException e) {
        if (readOnlyPool) {
            return false;
        }
        evictAll("the database refused a write as read-only", e);
        ServerRole told = role;
        if (told != null) {
            told.writeRefused(e);
        }
        return true;
    }

    /** The pool's role check, told of every write refused as read-only so that the block's other pools learn it. */
    void tell(@Nullable ServerRole serverRole) {
        this.role = serverRole;
    }

    private void evictAll(String what, SQLException e) {
        HikariPoolMXBean running = pool;
        if (running == null) {
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
