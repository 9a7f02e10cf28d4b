package io.github.dropwizardhikari.faults;

import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariConfig;
import io.github.dropwizardhikari.pool.FaultHandling;
import io.github.dropwizardhikari.pool.ManagedHikariDataSource;
import io.github.dropwizardhikari.pool.TestPoolOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class BusyPoolConnectivityCheckTest {
    private static final String CHECK = "busy.pool.ConnectivityCheck";
    private final HealthCheckRegistry healthChecks = new HealthCheckRegistry();
    private final ManagedHikariDataSource pool = pool();
    private final List<Connection> held = new ArrayList<>();

    private ManagedHikariDataSource pool() {
        HikariConfig config = new HikariConfig();
        config.setPoolName("busy");
        config.setDriverClassName(OutageDriver.class.getName());
        config.setJdbcUrl(OutageDriver.url("busy"));
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(1_000);
        return new ManagedHikariDataSource(config, healthChecks,
            TestPoolOptions.withFaults(new FaultHandling(0, List.of(), true)));
    }

    @AfterEach
    void release() throws Exception {
        OutageDriver.down(false);
        for (Connection connection : held) {
            connection.close();
        }
        pool.stop();
    }

    private void exhaust() throws Exception {
        for (int i = 0; i < 2; i++) {
            held.add(pool.getConnection());
        }
    }

    @Test
    void aBusyPoolOverALiveDatabaseIsHealthy() throws Exception {
        exhaust();
        long started = System.nanoTime();
        HealthCheck.Result result = healthChecks.runHealthCheck(CHECK);
        assertThat(result.isHealthy()).as(result.getMessage()).isTrue();
        assertThat(result.getMessage()).startsWith("pool busy is busy (2 connections in use, 0 callers waiting); "
            + "the database accepted a direct connection in");
        // it did not queue for the pool's connection timeout
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(900);
    }

    @Test
    void aBusyPoolOverADeadDatabaseIsUnhealthyWithinTheTimeout() throws Exception {
        exhaust();
        OutageDriver.down(true);
        long started = System.nanoTime();
        HealthCheck.Result result = healthChecks.runHealthCheck(CHECK);
        assertThat(result.isHealthy()).isFalse();
        assertThat(result.getMessage()).isEqualTo("pool busy is busy (2 in use) and the database refused a direct "
            + "connection (SQLState 08001)");
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(1_500);
    }

    @Test
    void anIdlePoolIsCheckedByHikariCp() throws Exception {
        try (Connection ignored = pool.getConnection()) {
            // started
        }
        HealthCheck.Result result = healthChecks.runHealthCheck(CHECK);
        assertThat(result.isHealthy()).isTrue();
        assertThat(result.getMessage()).isNull();
    }
}
