package io.github.dropwizardhikari.it.faults;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import io.github.dropwizardhikari.it.pools.BundleInitialization;
import io.github.dropwizardhikari.it.pools.OnTime;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What each pool does when the database misbehaves: its connections are killed, it becomes unreachable, slow
 * queries exhaust the pool, a borrower leaks a connection, or the application stops with work in flight. The
 * figures go to {@code target/docs/faults.md}; the assertions hold each pool to what it promises.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FaultsPostgresIT {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, outages, killed sessions and exhausted pools under load."
            + " WARN and ERROR lines in this log are expected.");
    }

    private static final Duration TIMEOUT = Duration.seconds(1);
    private static final long ON_TIME_MILLIS = OnTime.limitMillis(TIMEOUT);
    // one retry interval (250 ms: at most 4 connection attempts a second while the database is down), one connection
    // set-up through the proxy and the caller's 20 ms poll; the margin is for a loaded 2-core machine
    private static final long RECOVERY_MILLIS = 600;
    // HikariCP 7.1's longest sleep between two connection attempts while the database is down
    private static final long HIKARI_BACK_OFF_MILLIS = 5_000;
    /** How many times the 2 s outage is repeated on one pool. */
    private static final int OUTAGE_REPEATS = 5;
    private static final long PHASE_SHIFT_MILLIS = 17;

    private final FaultReport report = FaultReport.shared();
    private final MetricRegistry metrics = new MetricRegistry();
    private TestDatabase database;

    @BeforeAll
    void prepare() throws SQLException {
        database = TestDatabases.postgres().isolated("it_faults");
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE work (id INT PRIMARY KEY)");
        }
    }

    @AfterAll
    void writeReport() throws Exception {
        report.write(database.kind().displayName() + " (" + database.source() + ")");
    }

    private static String applicationName(String fault, PoolConfiguration pool) {
        return "it-" + fault + "-" + pool.label();
    }

    private TestDatabase named(TestDatabase target, String applicationName) {
        return target.withUrl(TestDatabase.withParameter(target.url(), "ApplicationName", applicationName));
    }

    private int backends(String applicationName) throws SQLException {
        try (Connection admin = database.connect(); Statement statement = admin.createStatement();
             ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM pg_stat_activity "
                 + "WHERE application_name = '" + applicationName + "'")) {
            result.next();
            return result.getInt(1);
        }
    }

    @ParameterizedTest
    @EnumSource(PoolConfiguration.class)
    void allServerConnectionsKilled(PoolConfiguration pool) throws Exception {
        String name = applicationName("killed", pool);
        ManagedDataSource dataSource = pool.build(named(database, name), name, 4, TIMEOUT, metrics);
        try {
            Requests.openAll(dataSource, 4);
            int before = backends(name);
            try (Connection admin = database.connect(); Statement statement = admin.createStatement()) {
                statement.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    + "WHERE application_name = '" + name + "'");
            }
            long killedAt = System.nanoTime();
            int failures = 0;
            int consecutive = 0;
            int requests = 0;
            // recovered: ten requests in a row succeed. A pool that never recovers fails here; the bound is a count,
            // not a time, and a loaded machine that slows each request does not make more of them fail
            while (consecutive < 10) {
                assertThat(requests).as("requests before recovery (%d failed, %d ms since the kill)", failures,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt)).isLessThan(1_000);
                requests++;
                if (Requests.selectOne(dataSource)) {
                    consecutive++;
                } else {
                    failures++;
                    consecutive = 0;
                }
            }
            long recoveryMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            report.record("All " + before + " server connections killed (`pg_terminate_backend`): failed requests, "
                + "time to 10 successes in a row", pool, failures + " failed, recovered in " + recoveryMillis + " ms");
            if (pool.isHikari()) {
                // a dead connection fails at most once: HikariCP evicts it on the disconnection SQLState
                assertThat(failures).isLessThanOrEqualTo(before);
            }
        } finally {
            dataSource.stop();
        }
    }

    /** The server process behind each of the pool's connections now. */
    private Set<Integer> backendPids(String applicationName) throws SQLException {
        Set<Integer> pids = new HashSet<>();
        try (Connection admin = database.connect(); Statement statement = admin.createStatement();
             ResultSet result = statement.executeQuery("SELECT pid FROM pg_stat_activity "
                 + "WHERE application_name = '" + applicationName + "'")) {
            while (result.next()) {
                pids.add(result.getInt(1));
            }
        }
        return pids;
    }

    /**
     * One session's death is not a failover: with eight request loops on a pool of four, one backend ended by
     * {@code pg_terminate_backend} costs the pool that one connection; the other three keep their server process.
     */
    @ParameterizedTest
    @EnumSource(PoolConfiguration.class)
    void oneSessionEndedUnderLoad(PoolConfiguration pool) throws Exception {
        String name = applicationName("one-ended", pool);
        ManagedDataSource dataSource = pool.build(named(database, name), name, 4, Duration.seconds(5), metrics);
        try {
            Requests.openAll(dataSource, 4);
            Set<Integer> before;
            int ended;
            int failures;
            try (Requests.Loops loops = new Requests.Loops(dataSource, 8)) {
                Requests.await("the loops are running", 10_000, () -> loops.served() > 100);
                before = backendPids(name);
                assertThat(before).as("the pool's server processes under load")
                    .hasSize(Requests.lends(dataSource, 4));
                ended = before.iterator().next();
                try (Connection admin = database.connect(); Statement statement = admin.createStatement()) {
                    statement.execute("SELECT pg_terminate_backend(" + ended + ")");
                }
                int servedAtKill = loops.served();
                Requests.await("the loops served 500 more requests", 20_000,
                    () -> loops.served() > servedAtKill + 500);
                loops.stop();
                failures = loops.failures();
            }
            Set<Integer> kept = new HashSet<>(backendPids(name));
            kept.retainAll(before);
            int replaced = before.size() - kept.size();
            report.record("One session of four ended (`pg_terminate_backend`) under 8 request loops: failed requests, "
                + "connections replaced", pool, failures + " failed, " + replaced + " of " + before.size()
                + " replaced");
            if (pool.isHikari()) {
                assertThat(replaced).as("connections replaced for one ended session").isEqualTo(1);
                assertThat(kept).doesNotContain(ended);
                assertThat(failures).as("requests failed").isLessThanOrEqualTo(1);
            }
        } finally {
            dataSource.stop();
        }
    }

    /**
     * A session the server ends for idleness ({@code idle_session_timeout}, set on one session only) is replaced
     * alone; the pool's other connections keep their server process.
     */
    @ParameterizedTest
    @EnumSource(PoolConfiguration.class)
    void oneIdleSessionTimedOut(PoolConfiguration pool) throws Exception {
        String name = applicationName("idle-timeout", pool);
        ManagedDataSource dataSource = pool.build(named(database, name), name, 4, Duration.seconds(5), metrics);
        try {
            Requests.openAll(dataSource, 4);
            Set<Integer> before = backendPids(name);
            assertThat(before).hasSize(Requests.lends(dataSource, 4));
            int timedOut;
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                 ResultSet pid = statement.executeQuery("SELECT pg_backend_pid()")) {
                pid.next();
                timedOut = pid.getInt(1);
                statement.execute("SET idle_session_timeout = '300ms'");
            }
            Requests.await("the server ended the idle session", 10_000, () -> {
                try {
                    return !backendPids(name).contains(timedOut);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            int failures = 0;
            for (int i = 0; i < 40; i++) {
                // all four at once, so the dead connection is borrowed too
                try {
                    Requests.openAll(dataSource, 4);
                } catch (SQLException e) {
                    failures++;
                }
            }
            Set<Integer> kept = new HashSet<>(backendPids(name));
            kept.retainAll(before);
            int replaced = before.size() - kept.size();
            report.record("One idle session of four ended by `idle_session_timeout`: failed rounds of 4 borrows, "
                + "connections replaced", pool, failures + " failed, " + replaced + " of " + before.size()
                + " replaced");
            if (pool.isHikari()) {
                assertThat(replaced).as("connections replaced for one timed-out session").isEqualTo(1);
                assertThat(failures).isZero();
            }
        } finally {
            dataSource.stop();
        }
    }

    /** One outage's figures. */
    record Outage(int failures, long slowestFailure, double attemptsPerSecond, long recovery, boolean healthyDuring) {
        static String summary(List<Outage> outages) {
            return outages.stream().mapToInt(Outage::failures).sum() + " failed, slowest "
                + outages.stream().mapToLong(Outage::slowestFailure).max().orElse(0) + " ms, "
                + outages.stream().map(o -> String.format(Locale.ROOT, "%.1f", o.attemptsPerSecond()))
                    .collect(Collectors.joining(" / ")) + " attempts/s, recovered "
                + outages.stream().map(o -> Long.toString(o.recovery())).collect(Collectors.joining(" / "))
                + " ms after";
        }
    }

    /**
     * Cuts the database off for {@code outageMillis} while a caller keeps asking (retrying 10 ms after a failure),
     * then lets it back and measures how long until the pool serves again.
     */
    private static Outage cutOff(TcpProxy proxy, ManagedDataSource dataSource, long outageMillis,
                                 BooleanSupplier healthCheck) throws Exception {
        proxy.mode(TcpProxy.Mode.REFUSE);
        proxy.cutAll();
        int acceptedBefore = proxy.accepted();
        long slowestFailure = 0;
        int failures = 0;
        long outageStarted = System.nanoTime();
        while (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - outageStarted) < outageMillis) {
            long started = System.nanoTime();
            boolean answered = Requests.selectOne(dataSource);
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            if (!answered) {
                failures++;
                slowestFailure = Math.max(slowestFailure, took);
                TimeUnit.MILLISECONDS.sleep(10);
            }
        }
        double downMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - outageStarted);
        double attemptsPerSecond = (proxy.accepted() - acceptedBefore) * 1_000 / downMillis;
        boolean healthyDuring = healthCheck.getAsBoolean();
        proxy.mode(TcpProxy.Mode.FORWARD);
        long recovery = Requests.await("the pool serves again", 15_000, () -> Requests.selectOne(dataSource));
        return new Outage(failures, slowestFailure, attemptsPerSecond, recovery, healthyDuring);
    }

    /**
     * Holds both connections of a pool of 2 with {@code pg_sleep(3)}, and returns once both queries run.
     */
    private static List<Future<?>> exhaustWithSleepers(ExecutorService slow, ManagedDataSource dataSource)
        throws InterruptedException {
        int lent;
        try {
            lent = Requests.lends(dataSource, 2);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        CountDownLatch bothRunning = new CountDownLatch(lent);
        List<Future<?>> sleepers = new ArrayList<>();
        for (int i = 0; i < lent; i++) {
            sleepers.add(slow.submit(() -> {
                try (Connection connection = dataSource.getConnection();
                     Statement statement = connection.createStatement()) {
                    bothRunning.countDown();
                    statement.execute("SELECT pg_sleep(3)");
                }
                return null;
            }));
        }
        assertThat(bothRunning.await(10, TimeUnit.SECONDS)).isTrue();
        return sleepers;
    }

    static Stream<Arguments> outages() {
        return Stream.of(Arguments.of(PoolConfiguration.HIKARI, 2),
            Arguments.of(PoolConfiguration.HIKARI_FAULT_HANDLING, 2), Arguments.of(PoolConfiguration.TOMCAT_DEFAULT, 2), Arguments.of(PoolConfiguration.TOMCAT_SAFE, 2),
            Arguments.of(PoolConfiguration.HIKARI, 30), Arguments.of(PoolConfiguration.HIKARI_FAULT_HANDLING, 30),
            Arguments.of(PoolConfiguration.TOMCAT_SAFE, 30));
    }

    /**
     * The database goes away (the proxy cuts every connection and refuses new ones) while callers keep asking,
     * each retrying 10 ms after a failure, then comes back. The proxy counts every connection attempt.
     */
    @ParameterizedTest(name = "{0}, {1} s")
    @MethodSource("outages")
    void databaseUnreachable(PoolConfiguration pool, int outageSeconds) throws Exception {
        String name = applicationName("unreachable" + outageSeconds, pool);
        HealthCheckRegistry healthChecks = new HealthCheckRegistry();
        int threadsBefore = poolThreads(name);
        try (TcpProxy proxy = new TcpProxy(database.hostAndPort())) {
            TestDatabase proxied = named(database.through(proxy.hostAndPort()), name);
            ManagedDataSource dataSource = build(pool, proxied, name, healthChecks);
            String health = "n/a (Tomcat has no pool health check)";
            try {
                assertThat(Requests.selectOne(dataSource)).isTrue();
                // short outages repeat, so the page shows the spread of the recovery time, not one draw of it
                int repeats = outageSeconds <= 2 ? OUTAGE_REPEATS : 1;
                List<Outage> outages = new ArrayList<>();
                for (int i = 0; i < repeats; i++) {
                    // each repeat ends 17 ms later than the one before, so the database returns at a different
                    // point of the pool's 250 ms retry cycle each time, not at the same one five times
                    long outageMillis = outageSeconds * 1_000L + i * PHASE_SHIFT_MILLIS;
                    Outage outage = cutOff(proxy, dataSource, outageMillis, () -> pool.isHikari()
                        && healthChecks.runHealthCheck(name + ".pool.ConnectivityCheck").isHealthy());
                    outages.add(outage);
                    if (pool == PoolConfiguration.HIKARI) {
                        // HikariCP alone: each borrower waits its whole timeout, and the pool fills after its
                        // back-off (doubling to 5 s) once the database answers
                        assertThat(outage.healthyDuring()).isFalse();
                        Requests.await("the connectivity check is healthy again", 10_000, () ->
                            healthChecks.runHealthCheck(name + ".pool.ConnectivityCheck").isHealthy());
                        assertThat(outage.slowestFailure()).as("slowest failure %d ms (timeout %d ms)",
                            outage.slowestFailure(), TIMEOUT.toMilliseconds()).isLessThanOrEqualTo(ON_TIME_MILLIS);
                        assertThat(outage.recovery()).as("served again %d ms after the database answered",
                            outage.recovery()).isLessThanOrEqualTo(HIKARI_BACK_OFF_MILLIS + RECOVERY_MILLIS);
                        assertThat(outage.attemptsPerSecond()).isLessThan(20);
                        health = "unhealthy during, healthy again";
                    }
                    if (pool == PoolConfiguration.HIKARI_FAULT_HANDLING) {
                        assertThat(outage.healthyDuring()).isFalse();
                        // healthy again once the pool serves; the check borrows with a 1 s timeout, which a loaded
                        // 2-core machine can miss once right after the pool refills
                        Requests.await("the connectivity check is healthy again", 10_000, () ->
                            healthChecks.runHealthCheck(name + ".pool.ConnectivityCheck").isHealthy());
                        assertThat(outage.slowestFailure()).as("slowest failure %d ms (timeout %d ms)",
                            outage.slowestFailure(), TIMEOUT.toMilliseconds()).isLessThanOrEqualTo(ON_TIME_MILLIS);
                        // one attempt every 250 ms; HikariCP alone takes 0.5 to 5 s (its back-off)
                        assertThat(outage.recovery()).as("served again %d ms after the database answered",
                            outage.recovery()).isLessThanOrEqualTo(RECOVERY_MILLIS);
                        // no storm against a starting database, where a pool that connects per request makes one
                        // per request
                        assertThat(outage.attemptsPerSecond()).isLessThan(20);
                        // 4 a second, plus the attempts as the outage begins and as it ends
                        assertThat(outage.attemptsPerSecond()).isLessThanOrEqualTo(4.0 + 2_000.0 / outageMillis);
                        health = "unhealthy during, healthy again";
                    }
                    assertThat(outage.failures()).isPositive();
                }
                String times = repeats > 1
                    ? ", " + repeats + " times in a row, each " + PHASE_SHIFT_MILLIS + " ms longer than the last" : "";
                report.record("Database unreachable for " + outageSeconds + " s" + times + " (TCP proxy refuses and "
                    + "cuts; callers retry 10 ms after a failure): failed requests, slowest failure, connection "
                    + "attempts a second while down, recovery after it returns (each outage), health check", pool,
                    Outage.summary(outages) + ", " + health);
            } finally {
                dataSource.stop();
            }
        }
        long leakedConnections = Requests.await("the pool's connections are gone", 10_000, () -> {
            try {
                return backends(name) == 0;
            } catch (SQLException e) {
                return false;
            }
        });
        Requests.await("the pool's threads are gone", 10_000, () -> poolThreads(name) <= threadsBefore);
        if (outageSeconds == 2) {
            report.record("After the 2 s outage and `stop()`: server connections and pool threads left", pool,
                "0 connections (" + leakedConnections + " ms), " + Math.max(0, poolThreads(name) - threadsBefore)
                    + " threads");
        }
    }

    private ManagedDataSource build(PoolConfiguration pool, TestDatabase target, String name,
                                    HealthCheckRegistry healthChecks) {
        if (pool.isHikari()) {
            HikariDataSourceFactory factory = pool.hikariFactory(target, 2, TIMEOUT);
            // what HikariBundle.run does for an application
            BundleInitialization.bind(factory, metrics, healthChecks);
            factory.setHealthCheckProperties(java.util.Map.of("connectivityCheckTimeoutMs", "1000"));
            return factory.build(metrics, name);
        }
        return pool.build(target, name, 2, TIMEOUT, metrics);
    }

    private static int poolThreads(String name) {
        return (int) Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> thread.getName().contains(name)).count();
    }

    @ParameterizedTest
    @EnumSource(PoolConfiguration.class)
    void poolExhaustedBySlowQueries(PoolConfiguration pool) throws Exception {
        String name = applicationName("exhausted", pool);
        HealthCheckRegistry healthChecks = new HealthCheckRegistry();
        ManagedDataSource dataSource = build(pool, named(database, name), name, healthChecks);
        ExecutorService slow = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> sleepers = exhaustWithSleepers(slow, dataSource);

            long started = System.nanoTime();
            String failure = "none";
            try (Connection ignored = dataSource.getConnection()) {
                failure = "got a connection";
            } catch (SQLException e) {
                failure = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            String health = "n/a (Tomcat has no pool health check)";
            if (pool.isHikari()) {
                long checkStarted = System.nanoTime();
                HealthCheck.Result result = healthChecks.runHealthCheck(name + ".pool.ConnectivityCheck");
                long checkMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - checkStarted);
                health = (result.isHealthy() ? "healthy" : "unhealthy") + " in " + checkMillis + " ms";
                // HikariCP's check borrows from the pool: a pool whose every connection is held longer than the
                // check's timeout reads unhealthy, bounded by that timeout. Telling a busy pool from a dead database
                // would take a connection beyond maxSize, which no extension opens.
                assertThat(result.isHealthy()).as(result.getMessage()).isFalse();
                assertThat(checkMillis).as("the check answered in %d ms (its timeout: %d ms)", checkMillis,
                    TIMEOUT.toMilliseconds()).isLessThan(ON_TIME_MILLIS);
            }
            for (Future<?> sleeper : sleepers) {
                sleeper.get(10, TimeUnit.SECONDS);
            }

            report.record("Pool of 2 exhausted by `pg_sleep(3)`: a third caller's wait and error; the connectivity "
                + "health check meanwhile", pool, waited + " ms, " + failure + "; health check " + health);
            assertThat(waited).as("the third caller waited %d ms (timeout %d ms)", waited, TIMEOUT.toMilliseconds())
                .isBetween(TIMEOUT.toMilliseconds() - 50, ON_TIME_MILLIS);
            assertThat(failure).isNotEqualTo("got a connection");
            if (pool.isHikari()) {
                assertThat(failure).startsWith("SQLTransientConnectionException: " + name
                    + " - Connection is not available, request timed out after");
            }
        } finally {
            slow.shutdownNow();
            dataSource.stop();
        }
    }

    /**
     * Slow queries hold every connection, then the database stops accepting connections (the proxy refuses new
     * ones; the slow queries go on): the health check must turn unhealthy within its timeout.
     */
    @ParameterizedTest
    @EnumSource(value = PoolConfiguration.class, names = {"HIKARI", "HIKARI_FAULT_HANDLING"})
    void busyPoolOverADatabaseThatRefusesConnections(PoolConfiguration pool) throws Exception {
        String name = applicationName("busy-down", pool);
        HealthCheckRegistry healthChecks = new HealthCheckRegistry();
        ExecutorService slow = Executors.newFixedThreadPool(2);
        try (TcpProxy proxy = new TcpProxy(database.hostAndPort())) {
            ManagedDataSource dataSource = build(pool, named(database.through(proxy.hostAndPort()), name), name,
                healthChecks);
            try {
                exhaustWithSleepers(slow, dataSource);
                proxy.mode(TcpProxy.Mode.REFUSE);
                long started = System.nanoTime();
                HealthCheck.Result result = healthChecks.runHealthCheck(name + ".pool.ConnectivityCheck");
                long checkMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                report.record("Pool of 2 exhausted by `pg_sleep(3)` while the database refuses new connections: "
                    + "the connectivity health check", pool, (result.isHealthy() ? "healthy"
                    : "unhealthy") + " in " + checkMillis + " ms: " + result.getMessage());
                assertThat(result.isHealthy()).isFalse();
                assertThat(checkMillis).as("the check answered in %d ms (its timeout: %d ms): %s", checkMillis,
                    TIMEOUT.toMilliseconds(), result.getMessage()).isLessThanOrEqualTo(ON_TIME_MILLIS);
            } finally {
                slow.shutdownNow();
                dataSource.stop();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(PoolConfiguration.class)
    void leakedConnectionIsReported(PoolConfiguration pool) throws Exception {
        String name = applicationName("leak", pool);
        ManagedDataSource dataSource;
        if (pool.isHikari()) {
            HikariDataSourceFactory factory = pool.hikariFactory(named(database, name), 2, TIMEOUT);
            factory.setLeakDetectionThreshold(Duration.seconds(2));
            dataSource = factory.build(metrics, name);
        } else {
            dataSource = pool.build(named(database, name), name, 2, TIMEOUT, metrics);
        }
        Logger hikariLeaks = (Logger) LoggerFactory.getLogger("com.zaxxer.hikari.pool.ProxyLeakTask");
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        hikariLeaks.addAppender(appender);
        // the test's logback configuration keeps HikariCP quiet; the leak report is a WARN
        hikariLeaks.setLevel(Level.WARN);
        try (Connection leaked = dataSource.getConnection()) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3_000);
            while (appender.list.isEmpty() && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(50);
            }
            assertThat(leaked.isValid(1)).isTrue();
        } finally {
            hikariLeaks.detachAppender(appender);
            hikariLeaks.setLevel(null);
            dataSource.stop();
        }
        List<String> warnings = appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        report.record("A connection held 3 s (HikariCP: `leakDetectionThreshold: 2s`)", pool, warnings.isEmpty()
            ? "no report (Tomcat's abandoned-connection logging is off in this configuration)"
            : "reported: \"" + warnings.get(0) + "\"");
        if (pool.isHikari()) {
            assertThat(warnings).anySatisfy(warning -> assertThat(warning)
                .startsWith("Connection leak detection triggered for"));
        }
    }

    @ParameterizedTest
    @EnumSource(PoolConfiguration.class)
    void gracefulStopWithWorkInFlight(PoolConfiguration pool) throws Exception {
        String name = applicationName("stop", pool);
        ManagedDataSource dataSource = pool.build(named(database, name), name, 4, TIMEOUT, metrics);
        int base = (pool.ordinal() + 1) * 1_000_000;
        Set<Integer> committed = ConcurrentHashMap.newKeySet();
        AtomicInteger abortedInFlight = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger next = new AtomicInteger(base);
        AtomicBoolean stopped = new AtomicBoolean();
        ExecutorService writers = Executors.newFixedThreadPool(4);
        for (int i = 0; i < 4; i++) {
            writers.execute(() -> {
                while (!stopped.get()) {
                    Connection connection;
                    try {
                        connection = dataSource.getConnection();
                    } catch (SQLException e) {
                        refused.incrementAndGet();
                        return;
                    }
                    int id = next.incrementAndGet();
                    try (connection; Statement statement = connection.createStatement()) {
                        connection.setAutoCommit(false);
                        statement.executeUpdate("INSERT INTO work (id) VALUES (" + id + ")");
                        // a transaction that is still open when the stop begins
                        statement.execute("SELECT pg_sleep(0.05)");
                        connection.commit();
                        committed.add(id);
                    } catch (SQLException e) {
                        abortedInFlight.incrementAndGet();
                    }
                }
            });
        }
        Requests.await("some work is committed", 10_000, () -> committed.size() >= 20);
        dataSource.stop();
        stopped.set(true);
        writers.shutdown();
        assertThat(writers.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
        boolean servesAfterStop = Requests.selectOne(dataSource);
        dataSource.stop();

        int inTable;
        try (Connection connection = database.connect(); Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM work WHERE id > " + base
                 + " AND id <= " + (base + 999_999))) {
            result.next();
            inTable = result.getInt(1);
        }
        report.record("`stop()` while 4 writers commit: committed, found in the table, transactions aborted "
            + "mid-way, new borrows refused", pool, committed.size() + " committed, " + inTable + " found, "
            + abortedInFlight.get() + " aborted, " + refused.get() + " refused"
            + (servesAfterStop ? "; still hands out connections after stop() (it opens a new pool)" : ""));
        assertThat(inTable).isEqualTo(committed.size());
        if (pool.isHikari()) {
            assertThat(servesAfterStop).isFalse();
            // the stop waits for borrowed connections, so no open transaction is cut off
            assertThat(abortedInFlight.get()).isZero();
        }
    }
}
