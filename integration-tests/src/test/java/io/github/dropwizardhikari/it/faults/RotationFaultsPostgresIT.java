package io.github.dropwizardhikari.it.faults;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.credentials.CredentialsFactory;
import io.github.dropwizardhikari.it.db.PasswordCheckingPostgres;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import org.apache.tomcat.jdbc.pool.DataSourceProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A password rotated under four borrowers, for each pool configuration, on a server that checks passwords: the
 * password file (HikariCP's {@code credentials.passwordFile}) is replaced and the role's password changed, then
 * the open connections are retired the way each pool allows (HikariCP: soft eviction, what {@code pool-evict}
 * does; Tomcat: {@code purge()}). Tomcat's pool keeps the password it was configured with.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RotationFaultsPostgresIT {
    static final String FAULT = "Password rotated under 4 borrowers (new password file, then `ALTER ROLE`), then "
        + "the open connections retired (HikariCP: `pool-evict`; Tomcat: `purge()`): failed borrows, state after";
    private static final String FIRST = "first-Secret-1";
    private static final String SECOND = "second-Secret-2";
    private static final int BORROWERS = 4;

    private final FaultReport report = new FaultReport("faults-credentials.md",
        "Faults: rotating the database password under load", "RotationFaultsPostgresIT");
    private PasswordCheckingPostgres server;
    private Path secrets;

    @BeforeAll
    void start() throws Exception {
        server = PasswordCheckingPostgres.start();
        secrets = Files.createTempDirectory("rotation-faults");
    }

    @AfterAll
    void stop() throws Exception {
        try {
            report.write("PostgreSQL (" + server.as("postgres", "").source() + ")");
        } finally {
            server.close();
            try (var files = Files.list(secrets)) {
                for (Path file : files.toList()) {
                    Files.delete(file);
                }
            }
            Files.delete(secrets);
        }
    }

    @ParameterizedTest
    @EnumSource(PoolConfiguration.class)
    void rotateThenRetire(PoolConfiguration configuration) throws Exception {
        String role = "rotation_" + configuration.name().toLowerCase(Locale.ROOT);
        server.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + FIRST + "'");
        Path passwordFile = Files.writeString(secrets.resolve(role), FIRST + "\n");
        ManagedDataSource pool = build(configuration, role, passwordFile);
        pool.start();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger succeeded = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        AtomicReference<String> firstError = new AtomicReference<>();
        ExecutorService borrowers = Executors.newFixedThreadPool(BORROWERS);
        List<Future<?>> loops = new ArrayList<>();
        for (int i = 0; i < BORROWERS; i++) {
            loops.add(borrowers.submit(() -> {
                while (running.get()) {
                    try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement();
                         ResultSet result = statement.executeQuery("SELECT 1")) {
                        result.next();
                        succeeded.incrementAndGet();
                    } catch (SQLException e) {
                        failed.incrementAndGet();
                        firstError.compareAndSet(null, e.getMessage());
                        // a pool that fails at once must not turn the loop into a login storm
                        pause();
                    }
                }
            }));
        }
        try {
            TimeUnit.SECONDS.sleep(1);
            Path next = Files.writeString(secrets.resolve(role + ".next"), SECOND + "\n");
            Files.move(next, passwordFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            server.execute("ALTER ROLE " + role + " PASSWORD '" + SECOND + "'");
            TimeUnit.SECONDS.sleep(1);
            int failedBeforeRetiring = failed.get();
            retire(configuration, pool);
            TimeUnit.SECONDS.sleep(2);
            // the last second: does the pool serve again?
            int okBefore = succeeded.get();
            int failedBefore = failed.get();
            TimeUnit.SECONDS.sleep(1);
            int lastOk = succeeded.get() - okBefore;
            int lastFailed = failed.get() - failedBefore;
            running.set(false);
            for (Future<?> loop : loops) {
                loop.get(30, TimeUnit.SECONDS);
            }
            int total = succeeded.get() + failed.get();
            String after = lastFailed == 0 && lastOk > 0 ? "serving again on new connections"
                : lastOk == 0 ? "every borrow failing (" + firstError.get() + ")" : lastFailed + " of "
                + (lastOk + lastFailed) + " borrows of the last second failing (" + firstError.get() + ")";
            report.record(FAULT, configuration, failed.get() + " of " + total + " failed ("
                + failedBeforeRetiring + " before retiring); " + after);
            if (configuration == PoolConfiguration.HIKARI) {
                assertThat(failed.get()).as("failed borrows: %s", firstError.get()).isZero();
                assertThat(lastOk).isPositive();
            } else {
                assertThat(lastFailed).as("Tomcat's pool keeps the old password").isPositive();
            }
        } finally {
            running.set(false);
            borrowers.shutdownNow();
            pool.stop();
        }
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private ManagedDataSource build(PoolConfiguration configuration, String role, Path passwordFile) {
        MetricRegistry metrics = new MetricRegistry();
        String name = "it-rotation-" + configuration.label();
        if (configuration != PoolConfiguration.HIKARI) {
            return configuration.build(server.as(role, FIRST), name, BORROWERS, Duration.seconds(1), metrics);
        }
        HikariDataSourceFactory factory = PoolConfiguration.hikari(server.as(role, null), BORROWERS,
            Duration.seconds(1));
        factory.setPassword(null);
        CredentialsFactory credentials = new CredentialsFactory();
        credentials.setPasswordFile(passwordFile.toString());
        factory.setCredentials(credentials);
        return factory.build(metrics, name);
    }

    private static void retire(PoolConfiguration configuration, ManagedDataSource pool) throws SQLException {
        if (configuration == PoolConfiguration.HIKARI) {
            pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();
        } else {
            ((DataSourceProxy) pool).purge();
        }
    }
}
