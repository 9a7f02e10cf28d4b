package io.github.dropwizardhikari;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;

/**
 * What {@link HikariBundle#initialize} does to an application's registries, for tests in other packages that build
 * pools with registries of their own and want the pools' health checks.
 */
public final class BundleInitialization {
    private BundleInitialization() {
    }

    /** Pools built with {@code metrics} from now on register their health checks in {@code healthChecks}. */
    public static void pair(MetricRegistry metrics, HealthCheckRegistry healthChecks) {
        ApplicationPools.of(metrics).pair(healthChecks);
    }
}
