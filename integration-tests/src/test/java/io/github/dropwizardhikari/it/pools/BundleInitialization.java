package io.github.dropwizardhikari.it.pools;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;

/**
 * Runs {@link HikariBundle#run} for one factory in an environment that holds the given registries, as Dropwizard does
 * when an application starts, for a test that builds pools without an application and wants their health checks.
 */
public final class BundleInitialization {
    private BundleInitialization() {
    }

    /** Pools built from {@code factory}, before and after, register their health checks in {@code healthChecks}. */
    public static Environment bind(HikariDataSourceFactory factory, MetricRegistry metrics,
                                   HealthCheckRegistry healthChecks) {
        Configuration configuration = new Configuration();
        Environment environment = new Environment("test", Jackson.newObjectMapper(),
            Validators.newValidatorFactory(), metrics, BundleInitialization.class.getClassLoader(), healthChecks,
            configuration);
        // the environment registers the JVM's deadlock check; the caller's registry is to hold the pools' alone
        healthChecks.unregister("deadlocks");
        new HikariBundle<Configuration>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(Configuration ignored) {
                return factory;
            }
        }.run(configuration, environment);
        return environment;
    }
}
