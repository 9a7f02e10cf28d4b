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
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * The bridge between {@code PooledDataSourceFactory.build(MetricRegistry, String)} and the rest of one
 * application: the only state the bundle shares between its parts, and the one place that explains it.
 *
 * <p>{@code build} receives the application's metric registry and nothing else, from whichever client calls it:
 * {@code JdbiFactory}, a {@code HibernateBundle} added before or after {@link HikariBundle} (its {@code run()}
 * builds and starts its pool before ours runs), {@code MigrationsBundle}, the application. So
 * {@link HikariBundle#initialize} puts one {@code ApplicationPools} into the bootstrap's metric registry, under
 * {@link #NAME}, paired with the bootstrap's health check registry (Dropwizard builds the environment from these
 * two). {@code build} looks it up there: the pool registers HikariCP's health checks where the admin servlet reads
 * them, whatever the order of the bundles, and is remembered until it stops, for the admin tasks. A second
 * {@code HikariBundle} finds the same one, and the tasks are registered once. A pool built with a registry that
 * no bundle initialized finds none: it records its metrics and has no health checks.</p>
 *
 * <p>It is a gauge because a metric registry holds metrics only, and Dropwizard starts a JMX reporter right after
 * {@code initialize} whose listener rejects any metric that is not a gauge, counter, histogram, meter or timer
 * (Metrics 4.2 throws "Unknown metric type", and the application does not start). So it shows on the admin
 * port's {@code /metrics} and in JMX, and says something true there: the number of pools built in the application
 * and not stopped.</p>
 *
 * <p>Nothing here keeps an application alive once the application lets go of it: this object is reachable only
 * from the application's own metric registry, and even that registry may outlive the application (one taken from
 * {@code SharedMetricRegistries}), so the health check registry, the pools and the environment are held weakly.
 * A pool built and dropped without being stopped is forgotten too.</p>
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
        forgetStoppedPools();
        pools.add(new WeakReference<>(requireNonNull(pool, "pool")));
    }

    /**
     * @return the pools built in the application that have not been stopped, in the order they were built
     */
    synchronized List<ManagedHikariDataSource> pools() {
        forgetStoppedPools();
        List<ManagedHikariDataSource> open = new ArrayList<>();
        for (WeakReference<ManagedHikariDataSource> reference : pools) {
            // read once: the collector may clear a reference at any moment, even after forgetStoppedPools
            ManagedHikariDataSource pool = reference.get();
            if (pool != null) {
                open.add(pool);
            }
        }
        return List.copyOf(open);
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
