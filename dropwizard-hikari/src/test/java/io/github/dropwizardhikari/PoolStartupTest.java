package io.github.dropwizardhikari;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A start that fails after HikariCP has opened its pool closes it and removes everything it registered, so the same
 * data source can start once the cause is gone.
 */
class PoolStartupTest {
    private final MetricRegistry metrics = new MetricRegistry();
    private final HealthCheckRegistry healthChecks = new HealthCheckRegistry();

    @Test
    void aStartRefusedByAnExtensionLeavesNothingBehind() throws Exception {
        String taken = "taken.elsewhere";
        Gauge<Integer> other = () -> 7;
        metrics.register(taken, other);
        HikariConfig config = new HikariConfig();
        config.setPoolName("taken");
        config.setJdbcUrl(CountingDriver.url("taken"));
        config.setUsername("sa");
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(500);
        // an extension that needs the name the other gauge holds, as one registering gauges of its own would
        PoolExtension needsTheName = (ignored, registry) -> new PoolHooks() {
            @Override
            public void started(HikariDataSource pool) {
                if (registry.getNames().contains(taken)) {
                    throw new IllegalStateException("a pool named 'taken' already has the gauge " + taken);
                }
            }
        };
        ManagedHikariDataSource dataSource = TestPools.managed(config, metrics, healthChecks, needsTheName);
        try {
            assertThatThrownBy(dataSource::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("a pool named 'taken' already has the gauge");

            assertThat(dataSource.isRunning()).isFalse();
            // HikariCP's metrics are gone; the other pool's gauge is untouched
            assertThat(metrics.getMetrics()).containsOnlyKeys(taken).containsEntry(taken, other);
            assertThat(healthChecks.getNames()).isEmpty();

            // once the clash is gone the same data source starts (it failed with "could not start: null" before)
            metrics.remove(taken);
            dataSource.start();
            assertThat(dataSource.isRunning()).isTrue();
            assertThat(healthChecks.getNames()).contains("taken.pool.ConnectivityCheck");
            assertThat(metrics.getNames()).contains("taken.pool.Wait").doesNotContain(taken);
        } finally {
            dataSource.stop();
        }
        assertThat(healthChecks.getNames()).isEmpty();
        assertThat(metrics.getNames()).isEmpty();
    }
}
