package io.github.dropwizardhikari.it.faults;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import io.github.dropwizardhikari.it.faults.SilentApplication.Run;
import io.github.dropwizardhikari.it.faults.SilentApplication.Shape;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

import static io.github.dropwizardhikari.it.faults.SilentApplication.MAX_WAIT_MILLIS;
import static io.github.dropwizardhikari.it.faults.SilentApplication.NETWORK_TIMEOUT_MILLIS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The core's {@code networkTimeout} on MariaDB's driver (which takes it as its socket timeout), with the database
 * gone silent for good while new connections answer (a failover to a new address): one query on a silent connection,
 * and the Jdbi + Hibernate application of {@link SilentDatabasePostgresIT} under its request loops.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SilentDatabaseMariaDbIT {
    private final FaultReport report = FaultReport.shared();
    private SilentApplication application;
    private TestDatabase database;

    @BeforeAll
    void migrate() throws Exception {
        application = SilentApplication.migrated(TestDatabases.mariadb().isolated("it_silent"));
        database = application.database();
    }

    @AfterAll
    void writeReport() throws Exception {
        report.write(database.kind().displayName() + " (" + database.source() + ")");
    }

    @Test
    void aQueryOnASilentConnectionFailsAfterNetworkTimeout() throws Exception {
        try (TcpProxy proxy = new TcpProxy(database.hostAndPort())) {
            HikariDataSourceFactory factory = PoolConfiguration.HIKARI.hikariFactory(
                database.through(proxy.hostAndPort()), 2, Duration.milliseconds(MAX_WAIT_MILLIS));
            factory.setNetworkTimeout(Duration.milliseconds(NETWORK_TIMEOUT_MILLIS));
            ManagedDataSource dataSource = factory.build(new MetricRegistry(), "it-silent-query");
            dataSource.start();
            try {
                long silentAt;
                long failedAfter;
                Throwable failure;
                try (Connection connection = dataSource.getConnection();
                     Statement statement = connection.createStatement()) {
                    assertThat(connection.unwrap(Connection.class).getNetworkTimeout())
                        .as("the driver's network timeout, ms").isEqualTo((int) NETWORK_TIMEOUT_MILLIS);
                    proxy.silence();
                    proxy.answerNewOnly();
                    silentAt = System.nanoTime();
                    failure = catchThrowable(() -> statement.executeQuery("SELECT 1"));
                    failedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentAt);
                }
                long servingAgain = failedAfter + Requests.await("a borrow and SELECT 1 succeed", 20_000,
                    () -> Requests.selectOne(dataSource));
                report.record("MariaDB: a query on a connection silent for good, new connections answered at once "
                    + "(a failover to a new address), the core's pool alone, `maxSize: 2`, `maxWaitForConnection: 2s`, "
                    + "`networkTimeout: 3s`: the query fails after, a borrow and a query succeed again after",
                    PoolConfiguration.HIKARI, failedAfter + " ms (" + String.valueOf(failure).lines().findFirst()
                        .orElse("") + "), " + servingAgain + " ms");
                assertThat(failure).as("the query on the silent connection").isInstanceOf(SQLException.class);
                // the driver's socket timeout ended it: not before networkTimeout, and not long after
                assertThat(failedAfter).as("ms until the query failed").isBetween(NETWORK_TIMEOUT_MILLIS - 100,
                    NETWORK_TIMEOUT_MILLIS + 3_000);
                // then the pool's other connection, silent too, fails its test within the borrow's wait, and a new
                // connection is opened
                assertThat(servingAgain).as("ms until a borrow and a query succeed again")
                    .isLessThanOrEqualTo(NETWORK_TIMEOUT_MILLIS + MAX_WAIT_MILLIS + 3_000);
            } finally {
                dataSource.stop();
            }
        }
    }

    @Test
    void silentForGoodNewAddressAnswers() throws Exception {
        Run run = application.run(PoolConfiguration.HIKARI, Shape.SILENT_FOR_GOOD, false);
        report.record("MariaDB: database silent for good, new connections answered from 1 s after, the "
            + "application and settings of the rows \"Database silent ...\": slowest request, failed requests, "
            + "serving again after the silence began, slowest admin `/healthcheck`, left after `stop()`",
            PoolConfiguration.HIKARI, run.figure());
        SilentApplication.assertFailoverBounded(run);
    }

    /**
     * The same failover, with the server ending the application's sessions as the silence begins (so the server the
     * address leads to holds none of them), and {@code fault-handling} with no {@code networkTimeout}: its session
     * check finds them gone and cuts them, so the application serves again within 10 s.
     */
    @Test
    void sessionsEndedBehindASilentNetworkAreCutByTheSessionCheck() throws Exception {
        Run run = application.run(PoolConfiguration.HIKARI_FAULT_HANDLING, Shape.SESSIONS_ENDED, false, 0);
        report.record("MariaDB: database silent for good, new connections answered from 1 s after, and the "
            + "application's sessions ended on the server as the silence began (`KILL`, as its restart or the old "
            + "server of a failover to a new address), the application of the rows \"Database silent ...\" with no "
            + "`networkTimeout` (the session check's defaults): slowest request, failed requests, serving again after "
            + "the silence began, slowest admin `/healthcheck`, left after `stop()`",
            PoolConfiguration.HIKARI_FAULT_HANDLING, run.figure());
        assertThat(run.servingAgainMillis()).as("ms until serving again after the silence began")
            .isBetween(0L, 10_000L);
        assertThat(run.leftConnections()).as("server connections left").isZero();
        assertThat(run.leftThreads()).as("pool threads left").isZero();
        SilentApplication.assertHealth(run);
    }
}
