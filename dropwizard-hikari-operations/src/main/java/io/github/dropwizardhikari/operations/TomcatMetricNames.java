package io.github.dropwizardhikari.operations;

import com.codahale.metrics.Counting;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariPoolMXBean;

import java.util.ArrayList;
import java.util.List;

/**
 * The gauges of Dropwizard's Tomcat-based {@code ManagedPooledDataSource}
 * ({@code io.dropwizard.db.ManagedPooledDataSource.<pool>.<gauge>}), fed from HikariCP, so dashboards built on them
 * keep working. Counts come from {@code <pool>.pool.ConnectionCreation}, {@code Wait} and {@code Usage};
 * {@code reconnected}, {@code releasedIdle} and {@code removeAbandoned} stay 0, as HikariCP has no such events.
 */
final class TomcatMetricNames {
    static final String PREFIX = "io.dropwizard.db.ManagedPooledDataSource";

    private final MetricRegistry registry;
    private final String poolName;
    private final List<String> registered = new ArrayList<>();

    private TomcatMetricNames(MetricRegistry registry, String poolName) {
        this.registry = registry;
        this.poolName = poolName;
    }

    /** @return what to {@link #remove()} when the pool stops; {@code registry} holds HikariCP's own metrics */
    static TomcatMetricNames register(MetricRegistry registry, String poolName, HikariPoolMXBean pool) {
        TomcatMetricNames names = new TomcatMetricNames(registry, poolName);
        try {
            names.add("active", (Gauge<Integer>) pool::getActiveConnections);
            names.add("idle", (Gauge<Integer>) pool::getIdleConnections);
            names.add("waiting", (Gauge<Integer>) pool::getThreadsAwaitingConnection);
            names.add("size", (Gauge<Integer>) pool::getTotalConnections);
            names.add("created", (Gauge<Long>) () -> names.count("ConnectionCreation"));
            names.add("borrowed", (Gauge<Long>) () -> names.count("Wait"));
            names.add("reconnected", (Gauge<Long>) () -> 0L);
            // every connection created and no longer in the pool has been closed
            names.add("released", (Gauge<Long>) () -> Math.max(0L,
                names.count("ConnectionCreation") - pool.getTotalConnections()));
            names.add("releasedIdle", (Gauge<Long>) () -> 0L);
            names.add("returned", (Gauge<Long>) () -> names.count("Usage"));
            names.add("removeAbandoned", (Gauge<Long>) () -> 0L);
        } catch (IllegalArgumentException e) {
            names.remove();
            throw new IllegalStateException("a pool named '" + poolName + "' already has Tomcat-named gauges in this "
                + "MetricRegistry (tomcatMetricNames of the operations extension): give each pool its own name", e);
        }
        return names;
    }

    private void add(String gauge, Gauge<?> metric) {
        String name = MetricRegistry.name(PREFIX, poolName, gauge);
        registry.register(name, metric);
        registered.add(name);
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
