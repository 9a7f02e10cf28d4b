package io.github.dropwizardhikari.it.faults;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.it.db.DatabaseKind;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A primary failover under load: an in-test TCP proxy stands for the DNS name or virtual IP; it switches new
 * connections from server A to server B, and A turns read-only, as a demoted primary does. The pooled
 * connections still lead to A. Also: ordinary statement errors on a healthy pool must not evict it, on
 * PostgreSQL and MariaDB.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FailoverPostgresIT {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, a failover: writes refused as read-only."
            + " WARN and ERROR lines in this log are expected.");
    }

    private static final int WORKERS = 4;
    private static final long AFTER_SWITCH_MILLIS = 3_000;

    // the fault handling's failover eviction logger, where its eviction warnings go
    private static final String FAILOVER_EVICTION_LOGGER = "io.github.dropwizardhikari.faulthandling.FailoverEviction";
    private final FaultReport report = FaultReport.shared();
    private final MetricRegistry metrics = new MetricRegistry();
    private EmbeddedPostgres serverA;
    private EmbeddedPostgres serverB;

    @BeforeAll
    void startTwoServers() throws Exception {
        serverA = EmbeddedPostgres.builder().start();
        serverB = EmbeddedPostgres.builder().start();
    }

    @AfterAll
    void stopServers() throws Exception {
        report.write("two more embedded PostgreSQL servers for the failover");
        serverA.close();
        serverB.close();
    }

    private static TestDatabase server(EmbeddedPostgres server) {
        return new TestDatabase(DatabaseKind.POSTGRES, server.getJdbcUrl("postgres", "postgres"), "postgres", "",
            "embedded PostgreSQL (zonky)");
    }

    private static void execute(TestDatabase database, String... commands) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            for (String command : commands) {
                statement.execute(command);
            }
        }
    }

    private record Outcome(long endedNanos, boolean succeeded) {
    }

    @ParameterizedTest
    @EnumSource(value = PoolConfiguration.class, names = {"HIKARI", "HIKARI_FAULT_HANDLING", "TOMCAT_SAFE"})
    void primaryFailover(PoolConfiguration pool) throws Exception {
        TestDatabase a = server(serverA);
        TestDatabase b = server(serverB);
        for (TestDatabase server : List.of(a, b)) {
            execute(server, "ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()",
                "DROP TABLE IF EXISTS orders", "CREATE TABLE orders (id SERIAL PRIMARY KEY, worker INT)");
        }
        String name = "it-failover-" + pool.label();
        try (TcpProxy proxy = new TcpProxy(a.hostAndPort())) {
            ManagedDataSource dataSource = pool.build(a.through(proxy.hostAndPort()), name, WORKERS,
                Duration.seconds(1), metrics);
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicInteger inFlight = new AtomicInteger();
            ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
            ExecutorService workers = Executors.newFixedThreadPool(WORKERS);
            try {
                for (int i = 0; i < WORKERS; i++) {
                    int worker = i;
                    workers.execute(() -> {
                        while (running.get()) {
                            inFlight.incrementAndGet();
                            boolean succeeded;
                            try (Connection connection = dataSource.getConnection();
                                 Statement statement = connection.createStatement()) {
                                statement.executeUpdate("INSERT INTO orders (worker) VALUES (" + worker + ")");
                                succeeded = true;
                            } catch (SQLException e) {
                                succeeded = false;
                            }
                            inFlight.decrementAndGet();
                            outcomes.add(new Outcome(System.nanoTime(), succeeded));
                        }
                    });
                }
                TimeUnit.MILLISECONDS.sleep(1_000);
                assertThat(outcomes).isNotEmpty().allMatch(Outcome::succeeded);

                int inFlightAtSwitch = inFlight.get();
                long switchedAt = System.nanoTime();
                proxy.retarget(b.hostAndPort());
                execute(a, "ALTER SYSTEM SET default_transaction_read_only = on", "SELECT pg_reload_conf()");
                TimeUnit.MILLISECONDS.sleep(AFTER_SWITCH_MILLIS);
                running.set(false);
                workers.shutdown();
                assertThat(workers.awaitTermination(10, TimeUnit.SECONDS)).isTrue();

                List<Outcome> afterSwitch = outcomes.stream().filter(o -> o.endedNanos() >= switchedAt).toList();
                long failed = afterSwitch.stream().filter(o -> !o.succeeded()).count();
                long lastFailure = afterSwitch.stream().filter(o -> !o.succeeded()).mapToLong(Outcome::endedNanos)
                    .max().orElse(switchedAt);
                long succeededLater = afterSwitch.stream().filter(o -> o.endedNanos() > lastFailure).count();
                boolean allGreen = failed == 0 || lastFailure < switchedAt + TimeUnit.MILLISECONDS.toNanos(
                    AFTER_SWITCH_MILLIS - 500);
                String figure = failed + " of " + afterSwitch.size() + " failed (" + inFlightAtSwitch
                    + " in flight at the switch), " + (allGreen ? "all green "
                    + TimeUnit.NANOSECONDS.toMillis(lastFailure - switchedAt) + " ms after the switch, "
                    + succeededLater + " successes since" : "still failing " + AFTER_SWITCH_MILLIS / 1_000
                    + " s after the switch");
                report.record("Primary failover under " + WORKERS + " writers: the proxy switches new connections "
                    + "to server B and A turns read-only (`default_transaction_read_only`): failed writes after "
                    + "the switch, time to all-green", pool, figure);
                if (pool == PoolConfiguration.HIKARI) {
                    // HikariCP alone keeps the connections to the old primary, now read-only, until their
                    // maxLifetime: writes go on failing
                    assertThat(allGreen).as(figure).isFalse();
                }
                if (pool == PoolConfiguration.HIKARI_FAULT_HANDLING) {
                    // every worker fails at most once: its failure (or an earlier one) evicted the whole pool
                    assertThat(failed).isLessThanOrEqualTo(WORKERS);
                    assertThat(allGreen).isTrue();
                    assertThat(succeededLater).isPositive();
                }
            } finally {
                running.set(false);
                workers.shutdownNow();
                dataSource.stop();
            }
        } finally {
            execute(a, "ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()");
        }
    }

    @ParameterizedTest
    @EnumSource(DatabaseKind.class)
    void ordinaryErrorsLeaveAHealthyPoolAlone(DatabaseKind kind) throws Exception {
        TestDatabase database = kind == DatabaseKind.POSTGRES ? server(serverA) : TestDatabases.mariadb();
        String table = "it_ordinary_" + Long.toHexString(System.nanoTime());
        String name = "it-ordinary-" + kind.name().toLowerCase();
        Logger failoverLog = (Logger) LoggerFactory.getLogger(FAILOVER_EVICTION_LOGGER);
        ListAppender<ILoggingEvent> warnings = new ListAppender<>();
        warnings.start();
        failoverLog.addAppender(warnings);
        // the extension that evicts on errors, on: it must not act on these
        ManagedDataSource dataSource = PoolConfiguration.HIKARI_FAULT_HANDLING.build(database, name, 3,
            Duration.seconds(1), metrics);
        try {
            dataSource.start();
            // fault-handling's session check keeps one connection of maxSize for itself on PostgreSQL
            int lent = Requests.lends(dataSource, 3);
            Set<Long> before = sessions(dataSource, kind, lent);
            List<String> errors = new ArrayList<>();
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE " + table + " (id INT PRIMARY KEY)");
                statement.execute("INSERT INTO " + table + " VALUES (1)");
                errors.add(failure(statement, "SELEC 1"));
                errors.add(failure(statement, "INSERT INTO " + table + " VALUES (1)"));
                errors.add(failure(statement, kind == DatabaseKind.POSTGRES
                    ? "SET statement_timeout = '50ms'; SELECT pg_sleep(1)"
                    : "SET STATEMENT max_statement_time = 0.05 FOR SELECT SLEEP(1)"));
                statement.execute(kind == DatabaseKind.POSTGRES ? "RESET statement_timeout" : "SELECT 1");
                statement.execute("DROP TABLE " + table);
            }
            Set<Long> after = sessions(dataSource, kind, lent);
            report.record(kind.displayName() + ": a syntax error, a duplicate key and a statement timeout on a "
                + "healthy pool of 3 (errors as SQLState/code): connections replaced, failover warnings",
                PoolConfiguration.HIKARI_FAULT_HANDLING, String.join(", ", errors) + ": "
                    + (lent - intersection(before, after)) + " of " + lent + " replaced, " + warnings.list.size()
                    + " warnings");
            assertThat(errors).hasSize(3).doesNotContain("no error");
            assertThat(after).isEqualTo(before);
            assertThat(warnings.list).isEmpty();
        } finally {
            failoverLog.detachAppender(warnings);
            dataSource.stop();
        }
    }

    private static int intersection(Set<Long> before, Set<Long> after) {
        Set<Long> kept = new HashSet<>(before);
        kept.retainAll(after);
        return kept.size();
    }

    private static String failure(Statement statement, String sql) {
        try {
            statement.execute(sql);
            return "no error";
        } catch (SQLException e) {
            return e.getSQLState() + "/" + e.getErrorCode();
        }
    }

    /** @return the server's session ids of all the pool's connections, borrowed at once */
    private static Set<Long> sessions(ManagedDataSource dataSource, DatabaseKind kind, int size) throws SQLException {
        List<Connection> held = new ArrayList<>();
        Set<Long> ids = new HashSet<>();
        try {
            for (int i = 0; i < size; i++) {
                Connection connection = dataSource.getConnection();
                held.add(connection);
                try (Statement statement = connection.createStatement();
                     ResultSet result = statement.executeQuery(kind == DatabaseKind.POSTGRES ? "SELECT pg_backend_pid()"
                         : "SELECT CONNECTION_ID()")) {
                    result.next();
                    ids.add(result.getLong(1));
                }
            }
        } finally {
            for (Connection connection : held) {
                connection.close();
            }
        }
        return ids;
    }
}
