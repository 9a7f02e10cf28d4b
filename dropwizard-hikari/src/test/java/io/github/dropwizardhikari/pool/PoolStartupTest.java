package io.github.dropwizardhikari.pool;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariConfig;
import io.github.dropwizardhikari.metrics.TomcatMetricNames;
import io.github.dropwizardhikari.scaleout.PoolSizing;
import io.github.dropwizardhikari.scaleout.PoolerMode;
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
    void aStartRefusedForTakenTomcatGaugesLeavesNothingBehind() throws Exception {
        String taken = MetricRegistry.name(TomcatMetricNames.PREFIX, "taken", "active");
        Gauge<Integer> other = () -> 7;
        metrics.register(taken, other);
        HikariConfig config = new HikariConfig();
        config.setPoolName("taken");
        config.setJdbcUrl(CountingDriver.url("taken"));
        config.setUsername("sa");
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(500);
        config.setMetricRegistry(metrics);
        PoolOptions options = new PoolOptions(new PoolSizing(PoolerMode.NONE), true, true, FaultHandling.defaults());
        ManagedHikariDataSource dataSource = new ManagedHikariDataSource(config, healthChecks, options);
        try {
            assertThatThrownBy(dataSource::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("a pool named 'taken' already has Tomcat-named gauges");

            assertThat(dataSource.isRunning()).isFalse();
            // HikariCP's metrics and the gate's are gone; the other pool's gauge is untouched
            assertThat(metrics.getMetrics()).containsOnlyKeys(taken).containsEntry(taken, other);
            assertThat(healthChecks.getNames()).isEmpty();

            // once the clash is gone the same data source starts (it failed with "could not start: null" before)
            metrics.remove(taken);
            dataSource.start();
            assertThat(dataSource.isRunning()).isTrue();
            assertThat(healthChecks.getNames()).contains("taken.pool.ConnectivityCheck");
            assertThat(metrics.getNames()).contains(taken, "taken.pool.Wait");
        } finally {
            dataSource.stop();
        }
        assertThat(healthChecks.getNames()).isEmpty();
        assertThat(metrics.getNames()).isEmpty();
    }
}
