package io.github.dropwizardhikari.operations;

import com.codahale.metrics.Counting;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariPoolMXBean;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * The gauges of Dropwizard's Tomcat-based {@code ManagedPooledDataSource}
 * ({@code io.dropwizard.db.ManagedPooledDataSource.<pool>.<gauge>}), fed from HikariCP, so dashboards built on them
 * keep working. Counts come from {@code <pool>.pool.ConnectionCreation}, {@code Wait} and {@code Usage};
 * {@code reconnected}, {@code releasedIdle} and {@code removeAbandoned} stay 0, as HikariCP has no such events.
 */
final class TomcatMetricNames {
    static final String PREFIX = "io.dropwizard.db.ManagedPooledDataSource";

    private final MetricRegistry registry;
    private final List<String> registered = new ArrayList<>();

    private TomcatMetricNames(MetricRegistry registry) {
        this.registry = registry;
    }

    /**
     * @param registry the registry HikariCP reports the pool's own metrics to
     * @return what to {@link #remove()} when the pool stops
     */
    static TomcatMetricNames register(MetricRegistry registry, String poolName, HikariPoolMXBean pool) {
        requireNonNull(pool, "pool");
        // the names of HikariCP's own tracker (CodahaleMetricsTrackerFactory), whoever registered the metrics
        String created = MetricRegistry.name(poolName, "pool", "ConnectionCreation");
        String borrowed = MetricRegistry.name(poolName, "pool", "Wait");
        String returned = MetricRegistry.name(poolName, "pool", "Usage");
        Map<String, Gauge<?>> gauges = new LinkedHashMap<>();
        gauges.put("active", (Gauge<Integer>) pool::getActiveConnections);
        gauges.put("idle", (Gauge<Integer>) pool::getIdleConnections);
        gauges.put("waiting", (Gauge<Integer>) pool::getThreadsAwaitingConnection);
        gauges.put("size", (Gauge<Integer>) pool::getTotalConnections);
        gauges.put("created", (Gauge<Long>) () -> count(registry, created));
        gauges.put("borrowed", (Gauge<Long>) () -> count(registry, borrowed));
        gauges.put("reconnected", (Gauge<Long>) () -> 0L);
        // every connection created and no longer in the pool has been closed
        gauges.put("released", (Gauge<Long>) () -> Math.max(0L,
            count(registry, created) - pool.getTotalConnections()));
        gauges.put("releasedIdle", (Gauge<Long>) () -> 0L);
        gauges.put("returned", (Gauge<Long>) () -> count(registry, returned));
        gauges.put("removeAbandoned", (Gauge<Long>) () -> 0L);

        TomcatMetricNames names = new TomcatMetricNames(registry);
        try {
            gauges.forEach((gauge, metric) -> {
                String name = MetricRegistry.name(PREFIX, poolName, gauge);
                registry.register(name, metric);
                names.registered.add(name);
            });
        } catch (IllegalArgumentException e) {
            names.remove();
            throw new IllegalStateException("a pool named '" + poolName + "' already has Tomcat-named gauges in this "
                + "MetricRegistry (tomcatMetricNames of the operations extension): give each pool its own name", e);
        }
        return names;
    }

    private static long count(MetricRegistry registry, String name) {
        return registry.getMetrics().get(name) instanceof Counting counting ? counting.getCount() : 0L;
    }

    /** Removes the gauges; safe to call more than once. */
    synchronized void remove() {
        registered.forEach(registry::remove);
        registered.clear();
    }
}
