package io.github.dropwizardhikari.it.pools;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;

/**
 * Runs {@link HikariBundle#initialize} on a bootstrap that holds the given registries, as Dropwizard does when an
 * application starts, for a test that builds pools without an application and wants their health checks.
 */
public final class BundleInitialization {
    private BundleInitialization() {
    }

    /** Pools built with {@code metrics} from now on register their health checks in {@code healthChecks}. */
    public static void pair(MetricRegistry metrics, HealthCheckRegistry healthChecks) {
        Bootstrap<Configuration> bootstrap = new Bootstrap<>(new Application<>() {
            @Override
            protected void bootstrapLogging() {
                // the test's own logging configuration stays as it is
            }

            @Override
            public void run(Configuration configuration, Environment environment) {
                // never run: only the bootstrap is used
            }
        });
        bootstrap.setMetricRegistry(metrics);
        bootstrap.setHealthCheckRegistry(healthChecks);
        new HikariBundle<Configuration>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(Configuration configuration) {
                return null;
            }
        }.initialize(bootstrap);
    }
}
