package io.github.dropwizardhikari.holders;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Pools over H2 with the extension named in Java, as users do with {@code setExtensions}, run by the bundle. */
final class HolderPools implements AutoCloseable {
    final MetricRegistry metrics = new MetricRegistry();
    final HoldersExtension extension = new HoldersExtension();
    private final List<ManagedHikariDataSource> built = new ArrayList<>();

    HikariDataSourceFactory factory(String name, int size, long timeoutMillis) {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:holders-" + name + ";DB_CLOSE_DELAY=-1");
        factory.setUser("sa");
        factory.setMaxSize(size);
        factory.setMinSize(size);
        factory.setMaxWaitForConnection(Duration.milliseconds(timeoutMillis));
        factory.setExtensions(List.of(extension));
        return factory;
    }

    ManagedHikariDataSource build(String name, int size, long timeoutMillis) throws Exception {
        return start(name, factory(name, size, timeoutMillis));
    }

    ManagedHikariDataSource start(String name, HikariDataSourceFactory factory) throws Exception {
        Configuration configuration = new Configuration();
        Environment environment = new Environment(name, Jackson.newObjectMapper(),
            Validators.newValidatorFactory(), metrics, getClass().getClassLoader(), new HealthCheckRegistry(),
            configuration);
        new HikariBundle<Configuration>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(Configuration ignored) {
                return factory;
            }
        }.run(configuration, environment);
        ManagedHikariDataSource dataSource = (ManagedHikariDataSource) factory.build(metrics, name);
        built.add(dataSource);
        dataSource.start();
        return dataSource;
    }

    PoolHolds holds(String name) {
        PoolHolds holds = extension.holds(name);
        if (holds == null) {
            throw new IllegalStateException("no pool named " + name + " started");
        }
        return holds;
    }

    static HikariDataSource hikari(ManagedHikariDataSource dataSource) throws SQLException {
        return dataSource.unwrap(HikariDataSource.class);
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }

    @Override
    public void close() {
        built.forEach(ManagedHikariDataSource::stop);
    }
}
