package io.github.dropwizardhikari.registry;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.github.dropwizardhikari.pool.ManagedHikariDataSource;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.WeakHashMap;

import static java.util.Objects.requireNonNull;

/**
 * What the bundle knows about each application, keyed by the application's {@link MetricRegistry}: the only
 * registry that {@code PooledDataSourceFactory.build(MetricRegistry, String)} receives.
 *
 * <p>{@code HikariBundle.initialize} pairs the bootstrap's metric registry with its health check registry
 * (Dropwizard builds the {@code Environment} from these two), so a pool built by any client, in any order of
 * bundles, registers HikariCP's health checks where the admin servlet reads them. Every pool built is remembered
 * until it stops, so that other parts of the bundle (admin tasks) can find them.</p>
 *
 * <p>Nothing here keeps an application alive: keys are weak, and so are the references to the registries and
 * pools (which hold the metric registry themselves).</p>
 */
public final class PoolRegistry {
    private static final Map<MetricRegistry, Application> APPLICATIONS = new WeakHashMap<>();

    private PoolRegistry() {
    }

    /**
     * Pools built with {@code metrics} register their health checks in {@code healthChecks} from now on.
     */
    public static void pair(MetricRegistry metrics, HealthCheckRegistry healthChecks) {
        requireNonNull(healthChecks, "healthChecks");
        synchronized (APPLICATIONS) {
            application(metrics).healthChecks = new WeakReference<>(healthChecks);
        }
    }

    /**
     * @return the health check registry paired with {@code metrics}, if any
     */
    public static Optional<HealthCheckRegistry> healthChecks(MetricRegistry metrics) {
        synchronized (APPLICATIONS) {
            Application application = APPLICATIONS.get(requireNonNull(metrics, "metrics"));
            return application == null ? Optional.empty() : Optional.ofNullable(application.healthChecks.get());
        }
    }

    /**
     * Remembers a pool built with {@code metrics} until it stops.
     */
    public static void built(MetricRegistry metrics, ManagedHikariDataSource pool) {
        requireNonNull(pool, "pool");
        synchronized (APPLICATIONS) {
            Application application = application(metrics);
            application.forgetStoppedPools();
            application.pools.add(new WeakReference<>(pool));
        }
    }

    /**
     * @return the pools built with {@code metrics} that have not been stopped, in the order they were built
     */
    public static List<ManagedHikariDataSource> pools(MetricRegistry metrics) {
        synchronized (APPLICATIONS) {
            Application application = APPLICATIONS.get(requireNonNull(metrics, "metrics"));
            if (application == null) {
                return List.of();
            }
            application.forgetStoppedPools();
            List<ManagedHikariDataSource> pools = new ArrayList<>();
            for (WeakReference<ManagedHikariDataSource> reference : application.pools) {
                // read once: the collector may clear a reference at any moment, even after forgetStoppedPools
                ManagedHikariDataSource pool = reference.get();
                if (pool != null) {
                    pools.add(pool);
                }
            }
            return List.copyOf(pools);
        }
    }

    private static Application application(MetricRegistry metrics) {
        return APPLICATIONS.computeIfAbsent(requireNonNull(metrics, "metrics"), ignored -> new Application());
    }

    private static final class Application {
        WeakReference<HealthCheckRegistry> healthChecks = new WeakReference<>(null);
        final List<WeakReference<ManagedHikariDataSource>> pools = new ArrayList<>();

        void forgetStoppedPools() {
            pools.removeIf(reference -> {
                ManagedHikariDataSource pool = reference.get();
                return pool == null || pool.isClosed();
            });
        }
    }
}
