package io.github.dropwizardhikari.fairborrowing;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.PoolHooks;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Pools over H2 with the extension named in Java, as users do with {@code setExtensions}, keeping each pool's gate. */
final class FairPools implements AutoCloseable {
    final MetricRegistry metrics;
    final HealthCheckRegistry healthChecks = new HealthCheckRegistry();
    private final List<ManagedHikariDataSource> built = new ArrayList<>();
    private final Map<String, BorrowGate> gates = new ConcurrentHashMap<>();
    // HikariCP's connection of each thread's last borrow, as the core tells the extensions
    private final ThreadLocal<Connection> lastLent = new ThreadLocal<>();

    FairPools() {
        this(new MetricRegistry());
    }

    /** @param metrics the registry the pools and their gates register in: a test's own can hold a borrower back */
    FairPools(MetricRegistry metrics) {
        this.metrics = metrics;
    }

    /** A pool of {@code size} connections, all opened at start, with the extension named. */
    ManagedHikariDataSource build(String name, int size, long timeoutMillis) throws Exception {
        ManagedHikariDataSource dataSource = buildStopped(name, size, timeoutMillis);
        dataSource.start();
        return dataSource;
    }

    ManagedHikariDataSource buildStopped(String name, int size, long timeoutMillis) {
        return buildStopped(name, factory(name, size, timeoutMillis));
    }

    /** @return the settings of a pool of {@code size} connections, all opened at start, with the extension named */
    HikariDataSourceFactory factory(String name, int size, long timeoutMillis) {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:fair-" + name + ";DB_CLOSE_DELAY=-1");
        factory.setUser("sa");
        factory.setMaxSize(size);
        factory.setMinSize(size);
        factory.setMaxWaitForConnection(Duration.milliseconds(timeoutMillis));
        factory.setExtensions(List.of(new KeepingGates()));
        return factory;
    }

    /** A pool of these settings, its health checks in {@link #healthChecks} as the bundle puts them. */
    ManagedHikariDataSource buildStopped(String name, HikariDataSourceFactory factory) {
        Configuration configuration = new Configuration();
        Environment environment = new Environment(name, Jackson.newObjectMapper(),
            Validators.newValidatorFactory(), metrics, getClass().getClassLoader(), healthChecks, configuration);
        // the environment's own check, which a second environment on the same registry would register again
        healthChecks.unregister("deadlocks");
        new HikariBundle<Configuration>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(Configuration ignored) {
                return factory;
            }
        }.run(configuration, environment);
        ManagedHikariDataSource dataSource = (ManagedHikariDataSource) factory.build(metrics, name);
        built.add(dataSource);
        return dataSource;
    }

    /** @return the gate of the pool of this name as last started */
    BorrowGate gate(String name) {
        BorrowGate gate = gates.get(name);
        if (gate == null) {
            throw new IllegalStateException("no pool named " + name + " started");
        }
        return gate;
    }

    static HikariDataSource hikari(ManagedHikariDataSource dataSource) {
        try {
            return dataSource.unwrap(HikariDataSource.class);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            TimeUnit.MILLISECONDS.sleep(2);
        }
    }

    /** Exactly {@code size} connections at once, then a timeout: no place was lost and none was added. */
    static void assertServesExactly(ManagedHikariDataSource dataSource, BorrowGate gate, int size) throws Exception {
        List<Connection> all = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                all.add(dataSource.getConnection());
            }
            assertThat(gate.freePlaces()).isZero();
            assertThatThrownBy(dataSource::getConnection).isInstanceOf(SQLTransientConnectionException.class);
        } finally {
            for (Connection connection : all) {
                connection.close();
            }
        }
        assertThat(gate.freePlaces()).isEqualTo(size);
    }

    @Override
    public void close() {
        built.forEach(ManagedHikariDataSource::stop);
    }

    /**
     * @return HikariCP's own connection of this thread's last borrow: the connection lent is the core's, which
     *     HikariCP's {@code evictConnection} does not take
     */
    Connection hikariConnectionOfLastBorrow() {
        return lastLent.get();
    }

    /** The extension itself, which also hands this class each gate it attaches and each connection HikariCP lends. */
    private final class KeepingGates implements PoolExtension {
        @Override
        public PoolHooks attach(HikariConfig config, MetricRegistry registry) {
            BorrowGate gate = FairBorrowing.attach(config, new BorrowGate(config.getPoolName(),
                config.getMaximumPoolSize(), config.getConnectionTimeout(), registry));
            gates.put(config.getPoolName(), gate);
            return new PoolHooks() {
                @Override
                public Connection borrow(Borrow next) throws SQLException {
                    return gate.borrow(next);
                }

                @Override
                public void borrowed(Connection connection) {
                    lastLent.set(connection);
                }

                @Override
                public void returned(Connection connection) {
                    gate.returned(connection);
                }

                @Override
                public void started(HikariDataSource pool) {
                    gate.started(pool);
                }

                @Override
                public void stopping() {
                    gate.stopping();
                }

                @Override
                public void stopped() {
                    gate.stopped();
                }
            };
        }
    }
}
