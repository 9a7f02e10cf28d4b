package io.github.dropwizardhikari;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.IMetricsTracker;
import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import com.zaxxer.hikari.metrics.PoolStats;
import io.dropwizard.db.ManagedDataSource;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The extension point end to end: an extension named in YAML is found, attached when its pool starts, hears of its
 * borrows in the order the block lists the extensions, sees HikariCP's records through the tracker it wraps, and
 * leaves nothing behind when the pool stops.
 */
class ExtensionPointTest {
    private final MetricRegistry metrics = new MetricRegistry();
    private final HealthCheckRegistry healthChecks = new HealthCheckRegistry();

    @Test
    void anExtensionNamedInYamlCountsBorrowsAndAddsACheckUntilThePoolStops() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("extension_named.yml");
        BundleInitialization.bind(factory, metrics, healthChecks);
        ManagedDataSource pool = factory.build(metrics, "named");
        try {
            for (int i = 0; i < 3; i++) {
                pool.getConnection().close();
            }
            assertThat(metrics.counter("named.pool.BorrowsSoFar").getCount()).isEqualTo(3);
            assertThat(healthChecks.getNames()).contains("named.pool.Borrowing", "named.pool.ConnectivityCheck");
            assertThat(healthChecks.runHealthCheck("named.pool.Borrowing").getMessage()).isEqualTo("3 borrows");
        } finally {
            pool.stop();
        }
        assertThat(metrics.getNames()).noneMatch(name -> name.startsWith("named."));
        assertThat(healthChecks.getNames()).isEmpty();
    }

    @Test
    void hooksWrapInTheOrderListedAndTheTrackerAnExtensionWrapsSeesEveryRecord() throws Exception {
        List<String> events = new ArrayList<>();
        AtomicInteger acquired = new AtomicInteger();
        PoolExtension first = (config, registry) -> {
            MetricsTrackerFactory hikaris = config.getMetricsTrackerFactory();
            config.setMetricsTrackerFactory((String poolName, PoolStats stats) -> {
                IMetricsTracker tracker = hikaris.create(poolName, stats);
                return new IMetricsTracker() {
                    @Override
                    public void recordConnectionAcquiredNanos(long nanos) {
                        acquired.incrementAndGet();
                        tracker.recordConnectionAcquiredNanos(nanos);
                    }

                    @Override
                    public void close() {
                        tracker.close();
                    }
                };
            });
            return recording("first", events);
        };
        PoolExtension second = (config, registry) -> recording("second", events);
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:ordered");
        factory.setMaxSize(1);
        factory.setExtensions(List.of(first, second));
        BundleInitialization.bind(factory, metrics, healthChecks);
        ManagedDataSource pool = factory.build(metrics, "ordered");
        try {
            pool.start();
            try (Connection connection = pool.getConnection()) {
                assertThat(connection.isValid(1)).isTrue();
            }
            assertThat(events).containsExactly("first started", "second started", "first check "
                + "ordered.pool.ConnectivityCheck", "second check ordered.pool.ConnectivityCheck", "first borrow",
                "second borrow", "second borrowed", "first borrowed");
            assertThat(acquired).hasValue(1);
            // HikariCP's own metrics are still recorded: the wrapping tracker delegated
            assertThat(metrics.timer("ordered.pool.Wait").getCount()).isEqualTo(1);
        } finally {
            pool.stop();
        }
        assertThat(events).endsWith("first stopping", "second stopping", "first stopped", "second stopped");
    }

    private static PoolHooks recording(String name, List<String> events) {
        return new PoolHooks() {
            @Override
            public Connection borrow(Borrow next) throws SQLException {
                events.add(name + " borrow");
                Connection connection = next.get();
                events.add(name + " borrowed");
                return connection;
            }

            @Override
            public void started(HikariDataSource pool) {
                events.add(name + " started");
            }

            @Override
            public HealthCheck healthCheck(String checkName, HealthCheck check) {
                events.add(name + " check " + checkName);
                return check;
            }

            @Override
            public void stopping() {
                events.add(name + " stopping");
            }

            @Override
            public void stopped() {
                events.add(name + " stopped");
            }
        };
    }
}
