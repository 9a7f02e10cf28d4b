package io.github.dropwizardhikari.it.sizing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.credentialfiles.CredentialFilesExtension;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import io.github.dropwizardhikari.operations.OperationsExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The line a pool whose block names the operations extension logs at start about its size against the server's
 * connection limit, on a real server: the limit it names is the one the server reports, a small pool is one INFO
 * line, and a pool that would take more than half of the connections is a WARN.
 */
abstract class SizingIT {
    private final MetricRegistry metrics = new MetricRegistry();
    private SizingLog log;

    /** The server to size against. */
    abstract TestDatabase server();

    /** The connections this server accepts from ordinary users, read independently of the bundle. */
    abstract int limit(Connection connection) throws SQLException;

    /** How the bundle says where {@link #limit} comes from. */
    abstract String derivation(Connection connection) throws SQLException;

    abstract String serverName();

    @BeforeEach
    void capture() {
        log = new SizingLog();
    }

    @AfterEach
    void release() {
        log.close();
    }

    private ManagedDataSource start(String name, int maxSize) throws Exception {
        return start(name, maxSize, true);
    }

    private ManagedDataSource start(String name, int maxSize, boolean sizingLog) throws Exception {
        OperationsExtension operations = new OperationsExtension();
        operations.setSizingLog(sizingLog);
        return start(name, maxSize, List.of(operations));
    }

    private ManagedDataSource start(String name, int maxSize, List<PoolExtension> extensions) throws Exception {
        HikariDataSourceFactory factory = PoolConfiguration.hikari(server(), maxSize, Duration.seconds(2));
        // one connection open, so a large maxSize costs the shared server nothing
        factory.setMinSize(1);
        factory.setExtensions(extensions);
        ManagedDataSource dataSource = factory.build(metrics, name);
        dataSource.start();
        return dataSource;
    }

    @Test
    void aSmallPoolLogsItsShareAsInfo() throws Exception {
        int limit;
        String derivation;
        try (Connection connection = server().connect()) {
            limit = limit(connection);
            derivation = derivation(connection);
        }
        ManagedDataSource dataSource = start("sizing-small", 4);
        try {
            ILoggingEvent line = log.await("sizing-small");

            assertThat(line.getLevel()).isEqualTo(Level.INFO);
            assertThat(line.getFormattedMessage()).isEqualTo("Pool sizing-small: maxSize 4 is "
                + Math.round(400.0 / limit) + "% of the " + limit + " connections " + serverName() + " accepts ("
                + derivation + "); " + limit / 4 + " pools of this size fill it");
        } finally {
            dataSource.stop();
        }
    }

    /** The line's query borrows from the pool, so it connects as the pool does: here, as the files say. */
    @Test
    void aPoolWhoseUserAndPasswordComeFromFilesLogsItsShare(@TempDir Path secrets) throws Exception {
        Path userFile = Files.writeString(secrets.resolve("user"), server().user() + "\n");
        Path passwordFile = Files.writeString(secrets.resolve("password"), server().password() + "\n");
        HikariDataSourceFactory factory = PoolConfiguration.hikari(server(), 4, Duration.seconds(2));
        factory.setUser(null);
        factory.setPassword(null);
        CredentialFilesExtension credentials = new CredentialFilesExtension();
        credentials.setUserFile(userFile.toString());
        credentials.setPasswordFile(passwordFile.toString());
        factory.setMinSize(1);
        factory.setExtensions(List.of(new OperationsExtension(), credentials));
        ManagedDataSource dataSource = factory.build(metrics, "sizing-files");
        dataSource.start();
        try {
            ILoggingEvent line = log.await("sizing-files");

            assertThat(line.getFormattedMessage()).startsWith("Pool sizing-files: maxSize 4 is ")
                .contains("% of the ", " connections " + serverName() + " accepts");
        } finally {
            dataSource.stop();
        }
    }

    @Test
    void sizingLogFalseLogsNoLine() throws Exception {
        ManagedDataSource quiet = start("sizing-off", 4, false);
        ManagedDataSource marker = start("sizing-marker", 4);
        try {
            // the marker's line comes from a pool started after the quiet one, through the same steps
            log.await("sizing-marker");

            assertThat(log.has("sizing-off")).isFalse();
        } finally {
            marker.stop();
            quiet.stop();
        }
    }

    @Test
    void aPoolOfMoreThanHalfTheServerWarns() throws Exception {
        int limit;
        try (Connection connection = server().connect()) {
            limit = limit(connection);
        }
        int maxSize = limit / 2 + 1;
        ManagedDataSource dataSource = start("sizing-large", maxSize);
        try {
            ILoggingEvent line = log.await("sizing-large");

            assertThat(line.getLevel()).isEqualTo(Level.WARN);
            assertThat(line.getFormattedMessage()).startsWith("Pool sizing-large: maxSize " + maxSize + " is ")
                .contains("of the " + limit + " connections " + serverName() + " accepts",
                    "a second instance of this application would run the server out of connections");
        } finally {
            dataSource.stop();
        }
    }

    @Test
    void withoutTheExtensionNamedNoLineIsLogged() throws Exception {
        ManagedDataSource plain = start("sizing-plain", 4, List.of());
        ManagedDataSource marker = start("sizing-named", 4);
        try {
            log.await("sizing-named");

            assertThat(log.has("sizing-plain")).isFalse();
        } finally {
            marker.stop();
            plain.stop();
        }
    }

    /** The query borrows from the pool like any borrower: HikariCP times its borrow, and no other pool is opened. */
    @Test
    void theSizingQueryIsABorrowFromThePool() throws Exception {
        ManagedDataSource dataSource = start("sizing-borrow", 4);
        try {
            log.await("sizing-borrow");

            assertThat(metrics.getTimers().get("sizing-borrow.pool.Wait").getCount()).isEqualTo(1);
            assertThat((Integer) metrics.getGauges().get("sizing-borrow.pool.TotalConnections").getValue())
                .isLessThanOrEqualTo(4);
        } finally {
            dataSource.stop();
        }
    }

    /**
     * Dropwizard's migrations commands ({@code db migrate}, {@code db status}) build a pool of one connection with
     * {@code asSingleConnectionPool()} and hold it for the whole command: no line about the maxSize the command set,
     * no WARN, no borrow that waits and times out behind the command's own.
     */
    @Test
    void aSingleConnectionPoolAsMigrationsBuildItLogsNoLine() throws Exception {
        HikariDataSourceFactory factory = PoolConfiguration.hikari(server(), 60, Duration.seconds(2));
        factory.setExtensions(List.of(new OperationsExtension()));
        factory.asSingleConnectionPool();
        MetricRegistry migrations = new MetricRegistry();
        ManagedDataSource single = factory.build(migrations, "sizing-liquibase");
        try (Connection command = single.getConnection()) {
            assertThat(command.isValid(2)).isTrue();
            // longer than the pool's 2 s connection timeout: a sizing borrow would have failed by now
            ManagedDataSource marker = start("sizing-after-single", 4);
            try {
                log.await("sizing-after-single");
                TimeUnit.MILLISECONDS.sleep(2_500);
            } finally {
                marker.stop();
            }
            // HikariCP times every borrow, a timed-out one too: the command's is the only one
            assertThat(migrations.getTimers().get("sizing-liquibase.pool.Wait").getCount()).isEqualTo(1);
        } finally {
            single.stop();
        }

        assertThat(log.has("sizing-liquibase")).isFalse();
        assertThat(log.lines()).noneMatch(line -> line.getLevel() == Level.WARN
            || line.getFormattedMessage().contains("timed out"));
    }
}
