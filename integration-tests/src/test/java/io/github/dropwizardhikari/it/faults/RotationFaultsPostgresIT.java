package io.github.dropwizardhikari.it.faults;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.credentialfiles.CredentialFilesExtension;
import io.github.dropwizardhikari.it.db.PasswordCheckingPostgres;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import org.apache.tomcat.jdbc.pool.DataSourceProxy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import io.dropwizard.db.DataSourceFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A password rotated under four borrowers, for each pool configuration, on a server that checks passwords: the
 * password file (the {@code credential-files} extension's {@code passwordFile}) is replaced and the role's password changed, then
 * the open connections are retired, either at once the way each pool allows (HikariCP: soft eviction, what
 * {@code pool-evict} does; Tomcat: {@code purge()}) or by age ({@code maxConnectionAge: 30s}, HikariCP's
 * shortest). Tomcat's pool keeps the password it was configured with. The rows land in {@code faults.md}.
 * <p>The seven tests run at once, each with a role and a pool of its own: most of their time is the 32 s wait for
 * connections to age out. Other suites do not run beside them.</p>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RotationFaultsPostgresIT {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, password rotations that break connections."
            + " WARN and ERROR lines in this log are expected.");
    }

    private static final String FIRST = "first-Secret-1";
    private static final String SECOND = "second-Secret-2";
    private static final int BORROWERS = 4;
    /** HikariCP's shortest {@code maxLifetime}; it retires each connection up to 2.5% earlier, at random. */
    private static final Duration MAX_AGE = Duration.seconds(30);

    /** How the connections opened with the old password leave the pool. */
    enum Retirement {
        EVICT("then the open connections retired at once (HikariCP: `pool-evict`; Tomcat: `purge()`)", 2),
        AGE("then the open connections left to retire by age (`maxConnectionAge: 30s`)", 32);

        final String description;
        /** Seconds after the rotation by which every old connection should be gone. */
        final int settleSeconds;

        Retirement(String description, int settleSeconds) {
            this.description = description;
            this.settleSeconds = settleSeconds;
        }

        String fault() {
            return "Password rotated under 4 borrowers (new password file, then `ALTER ROLE`), " + description
                + ": failed borrows, state after";
        }
    }

    private final FaultReport report = FaultReport.shared();
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
            report.write("PostgreSQL with SCRAM passwords for the rotation (" + server.as("postgres", "").source()
                + ")");
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

    static Stream<Arguments> rotations() {
        return Stream.of(Arguments.of(PoolConfiguration.HIKARI, Retirement.EVICT),
            Arguments.of(PoolConfiguration.HIKARI_FAULT_HANDLING, Retirement.EVICT),
            Arguments.of(PoolConfiguration.TOMCAT_DEFAULT, Retirement.EVICT),
            Arguments.of(PoolConfiguration.TOMCAT_SAFE, Retirement.EVICT),
            Arguments.of(PoolConfiguration.HIKARI, Retirement.AGE),
            Arguments.of(PoolConfiguration.HIKARI_FAULT_HANDLING, Retirement.AGE),
            Arguments.of(PoolConfiguration.TOMCAT_SAFE, Retirement.AGE));
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("rotations")
    @Execution(ExecutionMode.CONCURRENT)
    void rotateThenRetire(PoolConfiguration configuration, Retirement retirement) throws Exception {
        String role = "rotation_" + configuration.name().toLowerCase(Locale.ROOT) + "_"
            + retirement.name().toLowerCase(Locale.ROOT);
        server.execute("CREATE ROLE " + role + " LOGIN PASSWORD '" + FIRST + "'");
        Path passwordFile = Files.writeString(secrets.resolve(role), FIRST + "\n");
        ManagedDataSource pool = build(configuration, role, passwordFile, retirement);
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
            String rotatedAt = serverClock();
            TimeUnit.SECONDS.sleep(1);
            int failedBeforeRetiring = failed.get();
            if (retirement == Retirement.EVICT) {
                retire(configuration, pool);
            }
            TimeUnit.SECONDS.sleep(retirement.settleSeconds);
            // the old connections are gone: every session of the role began after the rotation
            assertThat(sessionsOpenedBefore(role, rotatedAt)).as("sessions opened before the rotation").isZero();
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
            report.record(retirement.fault(), configuration, failed.get() + " of " + total + " failed ("
                + failedBeforeRetiring + " before retiring); " + after);
            if (configuration.isHikari()) {
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

    private ManagedDataSource build(PoolConfiguration configuration, String role, Path passwordFile,
                                    Retirement retirement) {
        MetricRegistry metrics = new MetricRegistry();
        String name = "it-rotation-" + configuration.label() + "-" + retirement.name().toLowerCase(Locale.ROOT);
        if (!configuration.isHikari()) {
            DataSourceFactory factory = PoolConfiguration.tomcat(server.as(role, FIRST), BORROWERS,
                Duration.seconds(1));
            if (configuration == PoolConfiguration.TOMCAT_SAFE) {
                PoolConfiguration.safe(factory, DataSourceFactory.TransactionIsolation.READ_COMMITTED, null);
            }
            if (retirement == Retirement.AGE) {
                factory.setMaxConnectionAge(MAX_AGE);
            }
            return factory.build(metrics, name);
        }
        HikariDataSourceFactory factory = PoolConfiguration.hikari(server.as(role, null), BORROWERS,
            Duration.seconds(1));
        factory.setPassword(null);
        if (retirement == Retirement.AGE) {
            factory.setMaxConnectionAge(MAX_AGE);
        }
        CredentialFilesExtension credentials = new CredentialFilesExtension();
        credentials.setPasswordFile(passwordFile.toString());
        List<PoolExtension> extensions = new ArrayList<>(configuration.extensions());
        extensions.add(credentials);
        factory.setExtensions(extensions);
        return factory.build(metrics, name);
    }

    /** @return the server's clock now, to compare with its sessions' start times */
    private String serverClock() throws SQLException {
        try (Connection connection = server.superuser(); Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT clock_timestamp()::text")) {
            result.next();
            return result.getString(1);
        }
    }

    /** @return the role's sessions that the server opened before {@code instant} */
    private long sessionsOpenedBefore(String role, String instant) throws SQLException {
        try (Connection connection = server.superuser(); Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM pg_stat_activity WHERE usename = '"
                 + role + "' AND backend_start < '" + instant + "'::timestamptz")) {
            result.next();
            return result.getLong(1);
        }
    }

    private static void retire(PoolConfiguration configuration, ManagedDataSource pool) throws SQLException {
        if (configuration.isHikari()) {
            pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();
        } else {
            ((DataSourceProxy) pool).purge();
        }
    }
}
