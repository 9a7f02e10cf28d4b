package io.github.dropwizardhikari.it.faults;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code fault-handling} extension's session check on MariaDB, with its defaults (asked every second, a server
 * silent for 5 s) and no {@code networkTimeout}: what it relies on (MariaDB Connector/J keeps the server's thread id
 * from the handshake, and {@code information_schema.PROCESSLIST} stops listing a session the server ended); a query
 * on a session the server ended while the network between stays silent (as after the server's restart, or a
 * failover to a new address) is cut, and the pool serves again; a server that stops answering is cut after the
 * silence limit; the pool and its check never hold more than {@code maxSize} sessions. The core alone keeps
 * HikariCP's behaviour: the silent query waits.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeadSessionMariaDbIT {
    // the default silenceLimit, and how long past it the cut may come on a loaded 2-core machine
    private static final long SILENCE_LIMIT_MILLIS = 5_000;
    private static final long SLACK_MILLIS = 5_000;
    // how long the core's silent query is watched before the test lets it go: past the cut fault-handling makes
    private static final long WATCHED_MILLIS = 8_000;
    private static final Duration MAX_WAIT = Duration.seconds(2);

    private final FaultReport report = FaultReport.shared();
    private TestDatabase database;

    @BeforeAll
    void isolate() {
        database = TestDatabases.mariadb().isolated("it_dead_session");
    }

    @AfterAll
    void writeReport() throws Exception {
        report.write(database.kind().displayName() + " (" + database.source() + ")");
    }

    /** What the check relies on: the id read without a query is the server's, and the process list drops it. */
    @Test
    void connectorJKeepsTheServersThreadIdAndTheProcessListDropsAnEndedSession() throws Exception {
        ManagedDataSource dataSource = PoolConfiguration.HIKARI_FAULT_HANDLING.build(database,
            "it-dead-session-maria-id", 2, MAX_WAIT, new MetricRegistry());
        dataSource.start();
        try (Connection direct = database.connect(); Connection borrowed = dataSource.getConnection();
             Connection observer = database.connect()) {
            for (Connection connection : new Connection[] {direct, borrowed}) {
                long kept = connection.unwrap(org.mariadb.jdbc.Connection.class).getThreadId();
                assertThat(kept).as("the thread id Connector/J keeps from the handshake")
                    .isEqualTo(single(connection, "SELECT CONNECTION_ID()")).isPositive();
                assertThat(listed(observer, kept)).as("the process list holds the session").isTrue();
            }
            long ended = direct.unwrap(org.mariadb.jdbc.Connection.class).getThreadId();
            try (Statement statement = observer.createStatement()) {
                statement.execute("KILL CONNECTION " + ended);
            }
            Requests.await("the process list drops the ended session", 5_000, () -> !listedNow(observer, ended));
        } finally {
            dataSource.stop();
        }
    }

    @Test
    void aQueryOnASessionEndedBehindASilentNetworkIsCutAndThePoolServesAgain() throws Exception {
        for (PoolConfiguration pool : new PoolConfiguration[] {PoolConfiguration.HIKARI_FAULT_HANDLING,
            PoolConfiguration.HIKARI}) {
            try (TcpProxy proxy = new TcpProxy(database.hostAndPort());
                 Connection admin = database.connect()) {
                ManagedDataSource dataSource = pool.build(database.through(proxy.hostAndPort()),
                    "it-dead-session-maria-" + pool.label(), 2, MAX_WAIT, new MetricRegistry());
                dataSource.start();
                try {
                    Connection connection = dataSource.getConnection();
                    long thread = connection.unwrap(org.mariadb.jdbc.Connection.class).getThreadId();
                    CompletableFuture<Long> query = sleepAsync(connection);
                    TimeUnit.MILLISECONDS.sleep(300);
                    // the network between says nothing more; the server ends the session (its restart, or the old
                    // server of a failover to a new address); new connections reach the server
                    proxy.silence();
                    long silentAt = System.nanoTime();
                    try (Statement statement = admin.createStatement()) {
                        statement.execute("KILL CONNECTION " + thread);
                    }
                    proxy.answerNewOnly();
                    String figure;
                    if (pool == PoolConfiguration.HIKARI) {
                        Throwable waited = null;
                        try {
                            query.get(WATCHED_MILLIS, TimeUnit.MILLISECONDS);
                        } catch (TimeoutException e) {
                            waited = e;
                        }
                        assertThat(waited).as("the core alone sets no bound: the silent query still waits")
                            .isNotNull();
                        figure = "the query still waits after " + WATCHED_MILLIS + " ms (nothing bounds it)";
                        proxy.cutAll();
                        query.get(10, TimeUnit.SECONDS);
                    } else {
                        query.get(SILENCE_LIMIT_MILLIS + 2 * SLACK_MILLIS, TimeUnit.MILLISECONDS);
                        long cutAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentAt);
                        long servingAgain = Requests.await("a borrow and SELECT 1 succeed", 20_000,
                            () -> Requests.selectOne(dataSource));
                        // two answers of the process list without the session, a second apart
                        assertThat(cutAfter).as("ms from the silence to the cut")
                            .isLessThanOrEqualTo(SILENCE_LIMIT_MILLIS + SLACK_MILLIS);
                        figure = "cut after " + cutAfter + " ms, serving again " + servingAgain + " ms later";
                    }
                    connection.close();
                    report.record("MariaDB: a query (`SELECT SLEEP(60)`) on a connection silent for good whose "
                        + "session the server ended (`KILL`, as its restart or a failover to a new address would), new "
                        + "connections answered, `maxSize: 2`, no `networkTimeout`, the session check's defaults "
                        + "(every 1 s, `silenceLimit: 5s`): the query, serving again", pool, figure);
                } finally {
                    dataSource.stop();
                }
            }
        }
    }

    @Test
    void aQueryOnAServerThatStopsAnsweringIsCutAfterTheSilenceLimit() throws Exception {
        PoolConfiguration pool = PoolConfiguration.HIKARI_FAULT_HANDLING;
        try (TcpProxy proxy = new TcpProxy(database.hostAndPort())) {
            ManagedDataSource dataSource = pool.build(database.through(proxy.hostAndPort()),
                "it-dead-session-maria-silent", 2, MAX_WAIT, new MetricRegistry());
            dataSource.start();
            try {
                Connection connection = dataSource.getConnection();
                CompletableFuture<Long> query = sleepAsync(connection);
                // borrowed past an interval: the check's own connection is open and asking
                TimeUnit.MILLISECONDS.sleep(2_500);
                proxy.silence();
                long silentAt = System.nanoTime();
                query.get(SILENCE_LIMIT_MILLIS + 2 * SLACK_MILLIS, TimeUnit.MILLISECONDS);
                long cutAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentAt);
                connection.close();
                proxy.answer();
                long servingAgain = Requests.await("a borrow and SELECT 1 succeed", 20_000,
                    () -> Requests.selectOne(dataSource));
                report.record("MariaDB: a query (`SELECT SLEEP(60)`) when the server stops answering every "
                    + "connection, open and new (a TCP proxy passes no byte), `maxSize: 2`, no `networkTimeout`, "
                    + "the session check's defaults: the query cut after the silence began, serving again after the "
                    + "server answers", pool, "cut after " + cutAfter + " ms, serving again " + servingAgain + " ms "
                    + "after it answers");
                // the limit counts from the check's last answer, up to an interval before the silence
                assertThat(cutAfter).as("ms from the silence to the cut")
                    .isBetween(SILENCE_LIMIT_MILLIS - 1_000, SILENCE_LIMIT_MILLIS + SLACK_MILLIS);
            } finally {
                dataSource.stop();
            }
        }
    }

    /**
     * The check's own connection counts within {@code maxSize}: under borrowers that exhaust the pool and hold their
     * connections past the check's interval, the sessions in the pool's database never pass {@code maxSize}.
     */
    @Test
    void thePoolAndItsCheckNeverOpenMoreThanMaxSize() throws Exception {
        int maxSize = 3;
        TestDatabase own = TestDatabases.mariadb().isolated("it_dead_session_size");
        MetricRegistry metrics = new MetricRegistry();
        String name = "it-dead-session-maria-within-max-size";
        ManagedDataSource dataSource = PoolConfiguration.HIKARI_FAULT_HANDLING.build(own, name, maxSize,
            Duration.seconds(1), metrics);
        dataSource.start();
        int most;
        try {
            try (Connection observer = database.connect(); PreparedStatement count = observer.prepareStatement(
                "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = ?")) {
                count.setString(1, own.namespace());
                most = Requests.mostSessionsWhileExhausted(dataSource, maxSize, "SELECT SLEEP(1.5)", count);
            }
            assertThat(metrics.getGauges().get(name + ".pool.MaxConnections").getValue())
                .as("the pool's reported maximum: what it lends beside the check's connection").isEqualTo(maxSize - 1);
        } finally {
            dataSource.stop();
        }
        assertThat(most).as("the most sessions of the pool and its check at once (the check ran: one more than the "
            + "pool lends)").isEqualTo(maxSize);
        report.record("MariaDB: borrowers that exhaust a pool of `maxSize: 3` and hold each connection 1.5 s (past "
                + "the session check's interval): the most sessions of the pool and its check in the process list",
            PoolConfiguration.HIKARI_FAULT_HANDLING, most + " (the pool lends " + (maxSize - 1)
                + ", the check holds one)");
    }

    /** @return how long {@code SELECT SLEEP(60)} ran on {@code connection}, cut or not */
    private static CompletableFuture<Long> sleepAsync(Connection connection) {
        return CompletableFuture.supplyAsync(() -> {
            long started = System.nanoTime();
            try (Statement statement = connection.createStatement()) {
                statement.executeQuery("SELECT SLEEP(60)");
            } catch (Exception e) {
                // the cut: the call fails, as the check meant
            }
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        });
    }

    private static long single(Connection connection, String query) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(query)) {
            row.next();
            return row.getLong(1);
        }
    }

    private static boolean listed(Connection observer, long thread) throws SQLException {
        try (PreparedStatement statement = observer.prepareStatement(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = ?")) {
            statement.setLong(1, thread);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getInt(1) == 1;
            }
        }
    }

    private static boolean listedNow(Connection observer, long thread) {
        try {
            return listed(observer, thread);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
