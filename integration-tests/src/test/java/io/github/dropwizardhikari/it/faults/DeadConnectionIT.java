package io.github.dropwizardhikari.it.faults;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.it.db.DatabaseKind;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server ends the session of a connection while it is borrowed ({@code pg_terminate_backend},
 * {@code KILL CONNECTION}, H2's {@code ABORT_SESSION}): the borrower gets an error, returns the connection, and the next borrowers must not
 * get the dead connection back. Pools of one connection, so a dead connection kept in the pool is the one the
 * next borrower gets; the next borrows follow at once, within the 500 ms in which HikariCP does not validate a
 * connection it hands out.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeadConnectionIT {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, sessions that die under a borrowed connection."
            + " WARN and ERROR lines in this log are expected.");
    }

    private static final int NEXT_BORROWS = 3;

    private final FaultReport report = FaultReport.shared();
    private final MetricRegistry metrics = new MetricRegistry();
    private final Set<String> databases = new LinkedHashSet<>();

    static Stream<Arguments> cases() {
        List<Arguments> cases = new ArrayList<>();
        for (DatabaseKind kind : DatabaseKind.values()) {
            for (PoolConfiguration pool : PoolConfiguration.values()) {
                cases.add(Arguments.of(kind, pool));
            }
        }
        return cases.stream();
    }

    @AfterAll
    void writeReport() throws Exception {
        for (String database : databases) {
            report.write(database);
        }
    }

    private static TestDatabase database(DatabaseKind kind) {
        return kind == DatabaseKind.POSTGRES ? TestDatabases.postgres() : TestDatabases.mariadb();
    }

    private static void kill(TestDatabase database, long session) throws SQLException {
        String command = database.kind() == DatabaseKind.POSTGRES
            ? "SELECT pg_terminate_backend(" + session + ")" : "KILL CONNECTION " + session;
        try (Connection admin = database.connect(); Statement statement = admin.createStatement()) {
            statement.execute(command);
        }
    }

    @ParameterizedTest(name = "{0}, {1}")
    @MethodSource("cases")
    void sessionDiesWhileBorrowed(DatabaseKind kind, PoolConfiguration pool) throws Exception {
        TestDatabase database = database(kind);
        databases.add(database.kind().displayName() + " (" + database.source() + ")");
        String name = "it-dead-" + kind.name().toLowerCase() + "-" + pool.label();
        String query = kind == DatabaseKind.POSTGRES ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()";
        ManagedDataSource dataSource = pool.build(database, name, 1, Duration.seconds(1), metrics);
        try {
            String figure = afterTheSessionDies(dataSource, query, session -> kill(database, session),
                pool.isHikari());
            report.record(kind.displayName() + ": the session of a borrowed connection is killed (`"
                + (kind == DatabaseKind.POSTGRES ? "pg_terminate_backend" : "KILL CONNECTION") + "`), pool of 1: "
                + "the borrower's error (SQLState/code), failures of the next " + NEXT_BORROWS + " borrows", pool,
                figure);
        } finally {
            dataSource.stop();
        }
    }

    /**
     * One session's death is not a failover on MariaDB either: with eight request loops on a pool of four, one
     * session ended by {@code KILL CONNECTION} costs at most one request, and only its connection is replaced (the
     * pool's sessions are those in its own database in the server's process list).
     */
    @ParameterizedTest(name = "MariaDB, {0}")
    @EnumSource(PoolConfiguration.class)
    void oneMariaDbSessionKilledUnderLoad(PoolConfiguration pool) throws Exception {
        TestDatabase server = TestDatabases.mariadb();
        databases.add(server.kind().displayName() + " (" + server.source() + ")");
        TestDatabase own = server.isolated("it_one_killed_" + pool.label().replace('-', '_'));
        ManagedDataSource dataSource = pool.build(own, "it-one-killed-" + pool.label(), 4, Duration.seconds(5),
            metrics);
        try {
            Requests.openAll(dataSource, 4);
            Set<Long> before;
            long killed;
            int failures;
            try (Requests.Loops loops = new Requests.Loops(dataSource, 8)) {
                Requests.await("the loops are running", 10_000, () -> loops.served() > 100);
                before = sessionsIn(server, own.databaseName());
                // what the pool lends: fault-handling's session check keeps one connection of maxSize
                assertThat(before).as("the pool's sessions under load").hasSize(Requests.lends(dataSource, 4));
                killed = before.iterator().next();
                kill(server, killed);
                int servedAtKill = loops.served();
                Requests.await("the loops served 500 more requests", 20_000,
                    () -> loops.served() > servedAtKill + 500);
                loops.stop();
                failures = loops.failures();
            }
            Set<Long> kept = new HashSet<>(sessionsIn(server, own.databaseName()));
            kept.retainAll(before);
            int replaced = before.size() - kept.size();
            report.record("MariaDB: one session of four killed (`KILL CONNECTION`) under 8 request loops: failed "
                + "requests, connections replaced", pool, failures + " failed, " + replaced + " of "
                + before.size() + " replaced");
            if (pool.isHikari()) {
                assertThat(replaced).as("connections replaced for one killed session").isEqualTo(1);
                assertThat(kept).doesNotContain(killed);
                assertThat(failures).as("requests failed").isLessThanOrEqualTo(1);
            }
        } finally {
            dataSource.stop();
        }
    }

    /** The sessions whose current database is {@code database}, from the server's process list. */
    private static Set<Long> sessionsIn(TestDatabase server, String database) throws SQLException {
        Set<Long> sessions = new HashSet<>();
        try (Connection admin = server.connect(); Statement statement = admin.createStatement();
             ResultSet result = statement.executeQuery("SELECT ID FROM information_schema.PROCESSLIST "
                 + "WHERE DB = '" + database + "'")) {
            while (result.next()) {
                sessions.add(result.getLong(1));
            }
        }
        return sessions;
    }

    /** The H2 case: {@code ABORT_SESSION} gives error 90121, which HikariCP alone does not evict on. */
    @ParameterizedTest(name = "H2, {0}")
    @EnumSource(PoolConfiguration.class)
    void h2SessionDiesWhileBorrowed(PoolConfiguration pool) throws Exception {
        databases.add("H2 2 (in memory, in the test's JVM)");
        String url = "jdbc:h2:mem:it_dead_" + pool.name().toLowerCase() + ";DB_CLOSE_DELAY=-1";
        String name = "it-dead-h2-" + pool.label();
        SessionKiller abort = session -> {
            try (Connection admin = DriverManager.getConnection(url, "sa", "");
                 Statement statement = admin.createStatement()) {
                statement.execute("CALL ABORT_SESSION(" + session + ")");
            }
        };
        ManagedDataSource dataSource = h2Pool(pool, url, name);
        try {
            String figure = afterTheSessionDies(dataSource, "SELECT SESSION_ID()", abort,
                pool == PoolConfiguration.HIKARI_FAULT_HANDLING);
            if (pool == PoolConfiguration.HIKARI) {
                // the core alone is HikariCP: it puts the dead connection back and hands it out again
                assertThat(figure).doesNotContain("; 0 of ");
            }
            if (pool == PoolConfiguration.HIKARI_FAULT_HANDLING) {
                // the same with HikariCP's own data source and rules, for comparison
                HikariConfig plain = new HikariConfig();
                plain.setPoolName(name + "-plain");
                plain.setJdbcUrl(url);
                plain.setUsername("sa");
                plain.setMaximumPoolSize(1);
                plain.setConnectionTimeout(1_000);
                try (HikariDataSource hikariAlone = new HikariDataSource(plain)) {
                    figure += " (HikariCP alone: " + afterTheSessionDies(hikariAlone, "SELECT SESSION_ID()", abort,
                        false) + ")";
                }
            }
            report.record("H2: the session of a borrowed connection is aborted (`ABORT_SESSION`), pool of 1: the "
                + "borrower's error (SQLState/code), failures of the next " + NEXT_BORROWS + " borrows", pool,
                figure);
        } finally {
            dataSource.stop();
        }
    }

    private ManagedDataSource h2Pool(PoolConfiguration pool, String url, String name) {
        if (pool.isHikari()) {
            HikariDataSourceFactory factory = new HikariDataSourceFactory();
            factory.setUrl(url);
            factory.setUser("sa");
            factory.setExtensions(pool.extensions());
            factory.setMaxSize(1);
            factory.setMaxWaitForConnection(Duration.seconds(1));
            return factory.build(metrics, name);
        }
        DataSourceFactory factory = new DataSourceFactory();
        factory.setDriverClass("org.h2.Driver");
        factory.setUrl(url);
        factory.setUser("sa");
        factory.setPassword("");
        factory.setInitialSize(1);
        factory.setMinSize(1);
        factory.setMaxSize(1);
        factory.setMaxWaitForConnection(Duration.seconds(1));
        if (pool == PoolConfiguration.TOMCAT_SAFE) {
            PoolConfiguration.safe(factory, DataSourceFactory.TransactionIsolation.READ_COMMITTED, null);
        }
        return factory.build(metrics, name);
    }

    private interface SessionKiller {
        void kill(long session) throws SQLException;
    }

    private static long sessionId(Connection connection, String query) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(query)) {
            result.next();
            return result.getLong(1);
        }
    }

    /**
     * Borrows, kills the session, uses the connection, returns it, then borrows {@value #NEXT_BORROWS} times at
     * once.
     */
    private static String afterTheSessionDies(DataSource dataSource, String sessionQuery, SessionKiller killer,
                                              boolean neverHandsItOutAgain) throws SQLException {
        String error;
        String close = "";
        Connection borrowed = dataSource.getConnection();
        try {
            killer.kill(sessionId(borrowed, sessionQuery));
            try {
                sessionId(borrowed, sessionQuery);
                error = "no error";
            } catch (SQLException e) {
                error = e.getSQLState() + "/" + e.getErrorCode();
            }
        } finally {
            try {
                borrowed.close();
            } catch (SQLException e) {
                close = ", close() threw " + e.getSQLState();
            }
        }
        int failures = 0;
        for (int i = 0; i < NEXT_BORROWS; i++) {
            try (Connection next = dataSource.getConnection()) {
                sessionId(next, sessionQuery);
            } catch (SQLException e) {
                failures++;
            }
        }
        assertThat(error).isNotEqualTo("no error");
        if (neverHandsItOutAgain) {
            assertThat(failures).isZero();
        }
        return error + close + "; " + failures + " of " + NEXT_BORROWS + " next borrows failed";
    }
}
