package io.github.dropwizardhikari;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariConfig;
import org.jspecify.annotations.Nullable;

import java.util.List;

/** Builds a {@link ManagedHikariDataSource} by hand, for tests of the data source itself. */
final class TestPools {
    private TestPools() {
    }

    /**
     * @param healthChecks where the pool's checks go; {@code null}: nowhere, as before the bundle has run
     */
    static ManagedHikariDataSource managed(HikariConfig config, MetricRegistry metrics,
                                           @Nullable HealthCheckRegistry healthChecks, PoolExtension... extensions) {
        return new ManagedHikariDataSource(config, metrics, List.of(extensions),
            new PoolHealthChecks(config.getPoolName(), healthChecks), HeldConnections.Settings.NONE, null);
    }
}
