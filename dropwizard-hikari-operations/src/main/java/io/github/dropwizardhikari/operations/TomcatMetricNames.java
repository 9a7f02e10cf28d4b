package io.github.dropwizardhikari.operations;

import com.codahale.metrics.Counting;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariPoolMXBean;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The gauges of Dropwizard's Tomcat-based {@code ManagedPooledDataSource}
 * ({@code io.dropwizard.db.ManagedPooledDataSource.<pool>.<gauge>}), fed from HikariCP, so dashboards built on them
 * keep working. They keep tomcat-jdbc's relations between its counts: {@code active + idle <= size},
 * {@code released = created - size}, and {@code borrowed - returned >= active} (equal unless a connection was closed
 * while borrowed). So that one report reads them together, the gauges share a reading of the pool's MXBean and of
 * HikariCP's tracker ({@code <pool>.pool.ConnectionCreation} and {@code Usage}): a new one is taken when a gauge
 * already served from the current one is asked again, or when it is 100 ms old. {@code reconnected},
 * {@code releasedIdle} and {@code removeAbandoned} stay 0, as HikariCP has no such events.
 */
final class TomcatMetricNames {
    static final String PREFIX = "io.dropwizard.db.ManagedPooledDataSource";
    private static final long MAX_AGE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final MetricRegistry registry;
    private final String poolName;
    private final HikariPoolMXBean pool;
    private final List<String> registered = new ArrayList<>();

    // guarded by this
    @Nullable
    private Reading reading;
    private long readAt;
    private final Set<String> served = new HashSet<>();
    private long untracked;
    private long borrowed;

    /** One reading, in the units and types of tomcat-jdbc's {@code ConnectionPool} getters. */
    private record Reading(int active, int idle, int waiting, int size, long created, long borrowed, long released,
                           long returned) {
    }

    private TomcatMetricNames(MetricRegistry registry, String poolName, HikariPoolMXBean pool) {
        this.registry = registry;
        this.poolName = poolName;
        this.pool = pool;
    }

    /** @return what to {@link #remove()} when the pool stops; {@code registry} holds HikariCP's own metrics */
    static TomcatMetricNames register(MetricRegistry registry, String poolName, HikariPoolMXBean pool) {
        TomcatMetricNames names = new TomcatMetricNames(registry, poolName, pool);
        try {
            names.add("active", Reading::active);
            names.add("idle", Reading::idle);
            names.add("waiting", Reading::waiting);
            names.add("size", Reading::size);
            names.add("created", Reading::created);
            names.add("borrowed", Reading::borrowed);
            names.add("reconnected", reading -> 0L);
            names.add("released", Reading::released);
            names.add("releasedIdle", reading -> 0L);
            names.add("returned", Reading::returned);
            names.add("removeAbandoned", reading -> 0L);
            // while the connection HikariCP opened before its tracker was attached is certainly still open
            names.take();
        } catch (IllegalArgumentException e) {
            names.remove();
            throw new IllegalStateException("a pool named '" + poolName + "' already has Tomcat-named gauges in this "
                + "MetricRegistry (tomcatMetricNames of the operations extension): give each pool its own name", e);
        }
        return names;
    }

    private void add(String gauge, Function<Reading, Number> value) {
        String name = MetricRegistry.name(PREFIX, poolName, gauge);
        registry.register(name, (Gauge<Number>) () -> value.apply(read(gauge)));
        registered.add(name);
    }

    private synchronized Reading read(String gauge) {
        long now = System.nanoTime();
        Reading current = reading;
        if (current == null || !served.add(gauge) || now - readAt > MAX_AGE_NANOS) {
            current = take();
            reading = current;
            readAt = now;
            served.clear();
            served.add(gauge);
        }
        return current;
    }

    private synchronized Reading take() {
        // returns before the connections in use, so that one returned in between is not counted twice
        long returned = count("Usage");
        // size before the creations: HikariCP records a creation before the connection joins the pool
        int size = pool.getTotalConnections();
        int active = Math.min(pool.getActiveConnections(), size);
        int idle = Math.min(pool.getIdleConnections(), size - active);
        long creations = count("ConnectionCreation");
        // the connection HikariCP 7.1 opens to check the database before its tracker is attached is in the pool
        // and not in ConnectionCreation
        untracked = Math.max(untracked, size - creations);
        long created = creations + untracked;
        // a count, so it never goes down, though a connection closed while borrowed is neither active nor returned
        borrowed = Math.max(borrowed, returned + active);
        return new Reading(active, idle, pool.getThreadsAwaitingConnection(), size, created, borrowed,
            created - size, returned);
    }

    // a metric of HikariCP's own tracker (CodahaleMetricsTrackerFactory), under its name, whoever registered it
    private long count(String metric) {
        return registry.getMetrics().get(MetricRegistry.name(poolName, "pool", metric)) instanceof Counting counting
            ? counting.getCount() : 0L;
    }

    /** Removes the gauges; safe to call more than once. */
    synchronized void remove() {
        registered.forEach(registry::remove);
        registered.clear();
    }
}
