package io.github.dropwizardhikari;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.dropwizard.core.setup.Environment;
import io.github.dropwizardhikari.pool.ManagedHikariDataSource;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The state one application's bundles and pools share, kept in its metric registry under {@link #NAME}: the one
 * thing {@code PooledDataSourceFactory.build(MetricRegistry, String)} receives from every client ({@code JdbiFactory},
 * a {@code HibernateBundle} that runs before {@link HikariBundle}, the application). Through it a pool finds the
 * health check registry {@link HikariBundle#initialize} paired with that metric registry, and the admin tasks find
 * the pools. A pool built with a registry no bundle initialized has metrics and no health checks.
 *
 * <p>It is a gauge (the pools built and not stopped) because Dropwizard's JMX reporter rejects any other kind of
 * metric, and the application would not start (Metrics 4.2: "Unknown metric type"). It holds everything weakly:
 * the registry may outlive the application ({@code SharedMetricRegistries}).</p>
 */
final class ApplicationPools implements Gauge<Integer> {
    static final String NAME = MetricRegistry.name(HikariBundle.class, "pools");

    private WeakReference<HealthCheckRegistry> healthChecks = new WeakReference<>(null);
    private WeakReference<Environment> tasksRegisteredIn = new WeakReference<>(null);
    private final List<WeakReference<ManagedHikariDataSource>> pools = new ArrayList<>();

    private ApplicationPools() {
    }

    /**
     * @return the application's bridge, put into {@code metrics} by this call if no bundle put it there before
     * @throws IllegalStateException when another metric holds the name
     */
    static ApplicationPools of(MetricRegistry metrics) {
        Optional<ApplicationPools> existing = in(metrics);
        if (existing.isPresent()) {
            return existing.get();
        }
        try {
            return metrics.register(NAME, new ApplicationPools());
        } catch (IllegalArgumentException registeredMeanwhile) {
            return in(metrics).orElseThrow(() -> new IllegalStateException("the metric " + NAME + " is reserved "
                + "for " + HikariBundle.class.getName() + "; it holds a " + metrics.getMetrics().get(NAME)));
        }
    }

    /**
     * @return the bridge that a bundle put into {@code metrics}, if any
     */
    static Optional<ApplicationPools> in(MetricRegistry metrics) {
        Metric metric = requireNonNull(metrics, "metrics").getMetrics().get(NAME);
        return metric instanceof ApplicationPools pools ? Optional.of(pools) : Optional.empty();
    }

    /** Pools built from now on register their health checks in {@code registry}. */
    synchronized void pair(HealthCheckRegistry registry) {
        healthChecks = new WeakReference<>(requireNonNull(registry, "registry"));
    }

    synchronized Optional<HealthCheckRegistry> healthChecks() {
        return Optional.ofNullable(healthChecks.get());
    }

    /** Remembers a pool until it stops. */
    synchronized void built(ManagedHikariDataSource pool) {
        remember(new WeakReference<>(requireNonNull(pool, "pool")));
    }

    /** Keeps {@code reference}, which a test may give already cleared, as the collector leaves it. */
    synchronized void remember(WeakReference<ManagedHikariDataSource> reference) {
        forgetStoppedPools();
        pools.add(reference);
    }

    /**
     * @return the pools built in the application that have not been stopped, in the order they were built
     */
    synchronized List<ManagedHikariDataSource> pools() {
        forgetStoppedPools();
        // the collector may clear a reference at any moment, even after forgetStoppedPools
        return pools.stream().map(WeakReference::get).filter(Objects::nonNull).toList();
    }

    /**
     * @return true the first time it is asked about {@code environment}: the caller registers the admin tasks
     */
    synchronized boolean firstTasksFor(Environment environment) {
        if (tasksRegisteredIn.get() == requireNonNull(environment, "environment")) {
            return false;
        }
        tasksRegisteredIn = new WeakReference<>(environment);
        return true;
    }

    /** The number of pools built in the application and not stopped. */
    @Override
    public Integer getValue() {
        return pools().size();
    }

    private void forgetStoppedPools() {
        pools.removeIf(reference -> {
            ManagedHikariDataSource pool = reference.get();
            return pool == null || pool.isClosed();
        });
    }
}
