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
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    /**
     * Each borrow's outcome reaches every extension on the borrower's thread, whatever its place in the list: a
     * refusal by the extension listed first (a borrow handed to a thread of its own, as a gate could) reaches the one
     * listed after it, which the refused borrow never passed, and may say more in the borrower's exception.
     */
    @Test
    void everyExtensionHearsOfEachBorrowsOutcomeOnTheBorrowersThreadWhateverItsPlace() throws Exception {
        List<String> events = new ArrayList<>();
        AtomicInteger refuse = new AtomicInteger();
        PoolExtension refusing = (config, registry) -> new PoolHooks() {
            @Override
            public Connection borrow(Borrow next) throws SQLException {
                if (refuse.get() > 0) {
                    throw new SQLTransientConnectionException("refused here");
                }
                // the rest of the borrow on another thread, as a gate's helper would run it
                CompletableFuture<Connection> helped = CompletableFuture.supplyAsync(() -> {
                    try {
                        return next.get();
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                });
                return helped.join();
            }
        };
        PoolExtension listening = (config, registry) -> new PoolHooks() {
            @Override
            public Connection borrow(Borrow next) throws SQLException {
                events.add("borrow on " + Thread.currentThread().getName());
                return next.get();
            }

            @Override
            public void borrowed(Connection connection) {
                events.add("borrowed on " + Thread.currentThread().getName());
            }

            @Override
            public SQLException borrowFailed(SQLException failure) {
                events.add("failed on " + Thread.currentThread().getName() + ": " + failure.getMessage());
                return new SQLTransientConnectionException(failure.getMessage() + ", and more");
            }
        };
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:outcomes");
        factory.setMaxSize(1);
        factory.setExtensions(List.of(refusing, listening));
        BundleInitialization.bind(factory, metrics, healthChecks);
        ManagedDataSource pool = factory.build(metrics, "outcomes");
        String borrower = Thread.currentThread().getName();
        try {
            pool.getConnection().close();
            refuse.set(1);
            assertThatThrownBy(pool::getConnection).isInstanceOf(SQLTransientConnectionException.class)
                .hasMessage("refused here, and more");
        } finally {
            pool.stop();
        }
        assertThat(events).hasSize(3);
        assertThat(events.get(0)).as("the hook ran where the first extension sent it").isNotEqualTo("borrow on "
            + borrower);
        assertThat(events.subList(1, 3)).containsExactly("borrowed on " + borrower,
            "failed on " + borrower + ": refused here");
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
