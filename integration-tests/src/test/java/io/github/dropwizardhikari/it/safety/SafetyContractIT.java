package io.github.dropwizardhikari.it.safety;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.it.db.DatabaseKind;
import io.github.dropwizardhikari.it.db.RunNames;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.faults.TcpProxy;
import io.github.dropwizardhikari.it.pools.OnTime;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import io.github.dropwizardhikari.it.safety.Observation.Outcome;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One test per row of the safety table, for each pool configuration. Every pool holds one connection, so the
 * second borrow gets the same physical connection the first borrower left behind. {@code hikari} must keep every
 * guarantee; for the Tomcat configurations the tests pin the behaviour observed, so a change in either pool
 * shows up here. The observations are written to {@code target/docs/safety-matrix.md}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class SafetyContractIT {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, killed sessions, time-outs and unreachable databases."
            + " WARN and ERROR lines in this log are expected.");
    }

    private static final Duration TIMEOUT = Duration.seconds(1);
    private static final long ON_TIME_MILLIS = OnTime.limitMillis(TIMEOUT);

    private final MetricRegistry metrics = new MetricRegistry();
    private TestDatabase database;
    private SafetyMatrix matrix;

    /** The server to test on. */
    abstract TestDatabase server();

    /** What each pool is expected to do on this database. */
    abstract Outcome expected(Guarantee guarantee, PoolConfiguration pool);

    /** The pool configurations this suite runs. */
    Stream<PoolConfiguration> pools() {
        return Stream.of(PoolConfiguration.values());
    }

    /** An empty namespace on {@link #server()} for this suite. */
    TestDatabase isolated() {
        return server().isolated("it_safety");
    }

    /** Where the suite kills a pooled connection's server session from: the database itself, by default. */
    TestDatabase administration(TestDatabase database) {
        return database;
    }

    /** Where this suite's observations go. */
    SafetyMatrix matrix(TestDatabase database) {
        return new SafetyMatrix(database.kind());
    }

    @BeforeAll
    void prepare() throws SQLException {
        database = isolated();
        matrix = matrix(database);
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE safety (id INT PRIMARY KEY)");
        }
    }

    @AfterAll
    void writeMatrix() throws Exception {
        matrix.write();
    }

    private void judge(Guarantee guarantee, PoolConfiguration pool, Observation observation) {
        matrix.record(guarantee, pool, observation);
        assertThat(observation.outcome()).as("%s under %s on %s: %s", guarantee, pool,
            database.kind().displayName(), observation.note()).isEqualTo(expected(guarantee, pool));
    }

    /** A pool of one connection, run through {@code body}, then stopped. */
    private Observation withPool(PoolConfiguration pool, PoolBody body) throws Exception {
        ManagedDataSource dataSource = pool.build(database, "safety-" + pool.label(), 1, TIMEOUT, metrics);
        try {
            return body.observe(dataSource);
        } finally {
            dataSource.stop();
        }
    }

    @FunctionalInterface
    private interface PoolBody {
        Observation observe(ManagedDataSource dataSource) throws Exception;
    }

    private String scalar(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getString(1);
        }
    }

    private String backendId(Connection connection) throws SQLException {
        return scalar(connection, database.kind() == DatabaseKind.POSTGRES ? "SELECT pg_backend_pid()"
            : "SELECT CONNECTION_ID()");
    }

    private String isolationOnServer(Connection connection) throws SQLException {
        return scalar(connection, database.kind() == DatabaseKind.POSTGRES ? "SHOW transaction_isolation"
            : "SELECT @@SESSION.tx_isolation");
    }

    @ParameterizedTest
    @MethodSource("pools")
    void responseTime(PoolConfiguration pool) throws Exception {
        // The pool must open a connection while the network swallows the attempt: HikariCP opens connections
        // on its own thread and answers the caller at the timeout; a pool that connects on the caller's thread
        // answers when the driver gives up (its login timeout, 4 s here).
        try (TcpProxy proxy = new TcpProxy(database.hostAndPort())) {
            TestDatabase proxied = database.through(proxy.hostAndPort()).withUrl(driverTimeouts(
                database.through(proxy.hostAndPort()).url()));
            ManagedDataSource dataSource = twoConnectionPool(pool, proxied);
            try (Connection first = dataSource.getConnection()) {
                proxy.mode(TcpProxy.Mode.BLACKHOLE);
                long started = System.nanoTime();
                String result;
                try (Connection second = dataSource.getConnection()) {
                    result = "got a connection";
                } catch (SQLException e) {
                    result = "failed";
                }
                long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                judge(Guarantee.RESPONSE_TIME, pool, Observation.of(waited <= ON_TIME_MILLIS,
                    result + " after " + waited + " ms for a " + TIMEOUT.toMilliseconds() + " ms timeout"));
            } finally {
                proxy.mode(TcpProxy.Mode.REFUSE);
                proxy.cutAll();
                dataSource.stop();
            }
        }
    }

    private String driverTimeouts(String url) {
        if (database.kind() == DatabaseKind.POSTGRES) {
            return TestDatabase.withParameter(url, "loginTimeout", "4");
        }
        return TestDatabase.withParameter(TestDatabase.withParameter(url, "connectTimeout", "4000"),
            "socketTimeout", "4000");
    }

    // Two connections, one opened at start, so the second must be opened on demand.
    private ManagedDataSource twoConnectionPool(PoolConfiguration pool, TestDatabase target) {
        if (pool.isHikari()) {
            HikariDataSourceFactory factory = pool.hikariFactory(target, 2, TIMEOUT);
            factory.setMinSize(0);
            return factory.build(metrics, "timeout-" + pool.label());
        }
        return pool.build(target, "timeout-" + pool.label(), 2, TIMEOUT, metrics);
    }

    @ParameterizedTest
    @MethodSource("pools")
    void resetsCatalog(PoolConfiguration pool) throws Exception {
        judge(Guarantee.RESET_CATALOG, pool, withPool(pool, dataSource -> {
            if (database.kind() == DatabaseKind.POSTGRES) {
                return Observation.notApplicable("PostgreSQL's driver ignores setCatalog()");
            }
            String original;
            try (Connection connection = dataSource.getConnection(); Statement statement =
                connection.createStatement()) {
                original = connection.getCatalog();
                String other = RunNames.unique("it_safety_other");
                statement.execute("CREATE DATABASE IF NOT EXISTS " + other);
                database.dropAtExit(other);
                connection.setCatalog(other);
            }
            try (Connection connection = dataSource.getConnection()) {
                String now = scalar(connection, "SELECT DATABASE()");
                return Observation.of(original.equals(now), "next borrower's database: " + now);
            }
        }));
    }

    @ParameterizedTest
    @MethodSource("pools")
    void resetsReadOnly(PoolConfiguration pool) throws Exception {
        judge(Guarantee.RESET_READ_ONLY, pool, withPool(pool, dataSource -> {
            try (Connection connection = dataSource.getConnection()) {
                connection.setReadOnly(true);
            }
            try (Connection connection = dataSource.getConnection()) {
                boolean readOnly = connection.isReadOnly();
                return Observation.of(!readOnly, "next borrower's isReadOnly(): " + readOnly);
            }
        }));
    }

    @ParameterizedTest
    @MethodSource("pools")
    void resetsAutoCommit(PoolConfiguration pool) throws Exception {
        judge(Guarantee.RESET_AUTO_COMMIT, pool, withPool(pool, dataSource -> {
            boolean original;
            try (Connection connection = dataSource.getConnection()) {
                original = connection.getAutoCommit();
                connection.setAutoCommit(!original);
                connection.rollback();
            }
            try (Connection connection = dataSource.getConnection()) {
                boolean now = connection.getAutoCommit();
                return Observation.of(now == original, "next borrower's getAutoCommit(): " + now);
            }
        }));
    }

    @ParameterizedTest
    @MethodSource("pools")
    void resetsTransactionIsolation(PoolConfiguration pool) throws Exception {
        judge(Guarantee.RESET_ISOLATION, pool, withPool(pool, dataSource -> {
            String original;
            try (Connection connection = dataSource.getConnection()) {
                original = isolationOnServer(connection);
                connection.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            }
            try (Connection connection = dataSource.getConnection()) {
                String now = isolationOnServer(connection);
                return Observation.of(original.equals(now), "next borrower's session isolation: " + now);
            }
        }));
    }

    @ParameterizedTest
    @MethodSource("pools")
    void resetsNetworkTimeout(PoolConfiguration pool) throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try {
            judge(Guarantee.RESET_NETWORK_TIMEOUT, pool, withPool(pool, dataSource -> {
                int original;
                try (Connection connection = dataSource.getConnection()) {
                    original = connection.getNetworkTimeout();
                    connection.setNetworkTimeout(executor, 12_345);
                }
                try (Connection connection = dataSource.getConnection()) {
                    int now = connection.getNetworkTimeout();
                    return Observation.of(now == original, "next borrower's getNetworkTimeout(): " + now + " ms");
                }
            }));
        } finally {
            executor.shutdownNow();
        }
    }

    @ParameterizedTest
    @MethodSource("pools")
    void rollsBackOnReturn(PoolConfiguration pool) throws Exception {
        judge(Guarantee.ROLLBACK_ON_RETURN, pool, withPool(pool, dataSource -> {
            int id = 100 + pool.ordinal();
            try (Connection connection = dataSource.getConnection(); Statement statement =
                connection.createStatement()) {
                connection.setAutoCommit(false);
                statement.executeUpdate("INSERT INTO safety (id) VALUES (" + id + ")");
                // returned without commit or rollback
            }
            try (Connection connection = dataSource.getConnection()) {
                String seen = scalar(connection, "SELECT COUNT(*) FROM safety WHERE id = " + id);
                if (!connection.getAutoCommit()) {
                    connection.rollback();
                }
                return Observation.of(seen.equals("0"), seen.equals("0")
                    ? "the uncommitted insert was rolled back" : "the next borrower sees the uncommitted insert");
            }
        }));
    }

    @ParameterizedTest
    @MethodSource("pools")
    void disposesProxies(PoolConfiguration pool) throws Exception {
        judge(Guarantee.DISPOSABLE_PROXIES, pool, withPool(pool, dataSource -> {
            Connection returned = dataSource.getConnection();
            returned.close();
            try (Statement statement = returned.createStatement()) {
                statement.execute("SELECT 1");
                return Observation.broken("a closed connection still runs queries");
            } catch (SQLException e) {
                return Observation.kept("a closed connection refuses use");
            }
        }));
    }

    @ParameterizedTest
    @MethodSource("pools")
    void closesOpenStatements(PoolConfiguration pool) throws Exception {
        judge(Guarantee.CLOSE_OPEN_STATEMENTS, pool, withPool(pool, dataSource -> {
            Statement statement;
            ResultSet result;
            try (Connection connection = dataSource.getConnection()) {
                statement = connection.createStatement();
                result = statement.executeQuery("SELECT 1");
            }
            boolean statementClosed = statement.isClosed();
            boolean resultClosed = result.isClosed();
            if (!statementClosed) {
                statement.close();
            }
            return Observation.of(statementClosed && resultClosed, "after return: statement "
                + (statementClosed ? "closed" : "open") + ", result set " + (resultClosed ? "closed" : "open"));
        }));
    }

    @ParameterizedTest
    @MethodSource("pools")
    void evictsBrokenConnections(PoolConfiguration pool) throws Exception {
        judge(Guarantee.SQLSTATE_EVICTION, pool, withPool(pool, dataSource -> {
            String killed;
            try (Connection connection = dataSource.getConnection()) {
                killed = backendId(connection);
                try (Connection admin = administration(database).connect();
                     Statement statement = admin.createStatement()) {
                    statement.execute(database.kind() == DatabaseKind.POSTGRES
                        ? "SELECT pg_terminate_backend(" + killed + ")" : "KILL " + killed);
                }
                try {
                    scalar(connection, "SELECT 1");
                } catch (SQLException expected) {
                    // the failure whose SQLState should get the connection evicted
                }
            }
            try (Connection connection = dataSource.getConnection()) {
                String backend = backendId(connection);
                return Observation.kept("the next borrower got a working connection (" + (backend.equals(killed)
                    ? "same" : "new") + " backend)");
            } catch (SQLException e) {
                return Observation.broken("the next borrower got the dead connection: " + e.getSQLState());
            }
        }));
    }

    @ParameterizedTest
    @MethodSource("pools")
    void clearsWarnings(PoolConfiguration pool) throws Exception {
        judge(Guarantee.CLEAR_WARNINGS, pool, withPool(pool, dataSource -> {
            try (Connection connection = dataSource.getConnection()) {
                produceConnectionWarning(connection);
                if (connection.getWarnings() == null) {
                    return Observation.notApplicable("the driver reports no connection-level warning");
                }
            }
            try (Connection connection = dataSource.getConnection()) {
                boolean clear = connection.getWarnings() == null;
                return Observation.of(clear, clear ? "the next borrower sees no warning"
                    : "the next borrower sees: " + connection.getWarnings().getMessage());
            }
        }));
    }

    private void produceConnectionWarning(Connection connection) throws SQLException {
        if (database.kind() == DatabaseKind.POSTGRES) {
            // a COMMIT the driver sends with no transaction open on the server warns on the connection
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                statement.execute("SELECT 1");
                statement.execute("COMMIT");
            }
            connection.commit();
            connection.setAutoCommit(true);
        } else {
            // a division by zero is a warning, not an error, in MariaDB; it stays on the session
            scalar(connection, "SELECT 1 / 0");
        }
    }
}
