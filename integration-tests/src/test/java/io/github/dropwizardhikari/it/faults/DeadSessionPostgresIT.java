package io.github.dropwizardhikari.it.faults;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.it.db.DatabaseKind;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code fault-handling} extension's session check with its defaults (asked every second, a server silent for
 * 5 s) and no {@code networkTimeout}: a query on a connection gone silent for good while new connections lead to
 * another server (a failover to a new address: two embedded servers behind a TCP proxy) is cut, and the pool serves
 * again; a query that runs three times the silence limit on a
 * server that answers ends with its result. The core alone keeps HikariCP's behaviour, and Dropwizard's Tomcat pool
 * (its defaults and its safe configuration) does the same: the silent query waits.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DeadSessionPostgresIT {
    // the default silenceLimit, and how long past it the cut may come on a loaded 2-core machine
    private static final long SILENCE_LIMIT_MILLIS = 5_000;
    private static final long SLACK_MILLIS = 5_000;
    // how long the core's silent query is watched before the test lets it go: past the cut fault-handling makes
    private static final long WATCHED_MILLIS = SILENCE_LIMIT_MILLIS + 3_000;
    private static final Duration MAX_WAIT = Duration.seconds(2);

    private final FaultReport report = FaultReport.shared();
    private final TestDatabase database = TestDatabases.postgres();
    private EmbeddedPostgres serverA;
    private EmbeddedPostgres serverB;

    @BeforeAll
    void startTwoServers() throws Exception {
        serverA = EmbeddedPostgres.builder().start();
        serverB = EmbeddedPostgres.builder().start();
    }

    @AfterAll
    void writeReport() throws Exception {
        report.write(database.kind().displayName() + " (" + database.source() + ")");
        serverA.close();
        serverB.close();
    }

    private static TestDatabase server(EmbeddedPostgres server) {
        return new TestDatabase(DatabaseKind.POSTGRES, server.getJdbcUrl("postgres", "postgres"), "postgres", "",
            "embedded PostgreSQL (zonky)");
    }

    /** Each pool on a proxy of its own, all at once: three of them wait out the watch, which need not add up. */
    @Test
    void aQueryOnASessionSilentForGoodIsCutAndThePoolServesAgain() throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool();
        try {
            Map<PoolConfiguration, CompletableFuture<String>> runs = new EnumMap<>(PoolConfiguration.class);
            for (PoolConfiguration pool : PoolConfiguration.values()) {
                runs.put(pool, CompletableFuture.supplyAsync(() -> {
                    try {
                        return silentForGood(pool, threads);
                    } catch (Exception e) {
                        throw new CompletionException(e);
                    }
                }, threads));
            }
            for (Map.Entry<PoolConfiguration, CompletableFuture<String>> run : runs.entrySet()) {
                report.record("PostgreSQL: a query on a connection silent for good while the address leads to "
                    + "another server (a failover to a new address), `maxSize: 2`, no `networkTimeout`, the "
                    + "session check's defaults (every 1 s, `silenceLimit: 5s`): the query, serving again",
                    run.getKey(), run.getValue().get(120, TimeUnit.SECONDS));
            }
        } finally {
            threads.shutdownNow();
        }
    }

    /** @return the row's figure for {@code pool}: the silent query, and the pool serving again */
    private String silentForGood(PoolConfiguration pool, ExecutorService threads) throws Exception {
        TestDatabase a = server(serverA);
        try (TcpProxy proxy = new TcpProxy(a.hostAndPort())) {
            ManagedDataSource dataSource = pool.build(a.through(proxy.hostAndPort()),
                "it-dead-session-" + pool.label(), 2, MAX_WAIT, new MetricRegistry());
            dataSource.start();
            try {
                Connection connection = dataSource.getConnection();
                CompletableFuture<Long> query = CompletableFuture.supplyAsync(() -> {
                    long started = System.nanoTime();
                    try (Statement statement = connection.createStatement()) {
                        statement.executeQuery("SELECT pg_sleep(60)");
                    } catch (Exception e) {
                        // the cut: the call fails, as the check meant
                    }
                    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                }, threads);
                TimeUnit.MILLISECONDS.sleep(300);
                // the address leads to server B from now on; what was open to A says nothing more
                proxy.silence();
                proxy.retarget(server(serverB).hostAndPort());
                proxy.answerNewOnly();
                long silentAt = System.nanoTime();
                String figure;
                if (pool != PoolConfiguration.HIKARI_FAULT_HANDLING) {
                    Throwable waited = null;
                    try {
                        query.get(WATCHED_MILLIS, TimeUnit.MILLISECONDS);
                    } catch (TimeoutException e) {
                        waited = e;
                    }
                    // the core alone and Tomcat's pool (its defaults, and with validation on borrow: the query
                    // was borrowed before) set no bound on a call in progress
                    assertThat(waited).as("no bound: the silent query still waits").isNotNull();
                    figure = "the query still waits after " + WATCHED_MILLIS + " ms (nothing bounds it)";
                    proxy.cutAll();
                    query.get(10, TimeUnit.SECONDS);
                } else {
                    query.get(SILENCE_LIMIT_MILLIS + 2 * SLACK_MILLIS, TimeUnit.MILLISECONDS);
                    long cutAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentAt);
                    long servingAgain = Requests.await("a borrow and SELECT 1 succeed", 20_000,
                        () -> Requests.selectOne(dataSource));
                    // B does not hold the session (two answers) or A's silence passes the limit, whichever first
                    assertThat(cutAfter).as("ms from the silence to the cut")
                        .isLessThanOrEqualTo(SILENCE_LIMIT_MILLIS + SLACK_MILLIS);
                    figure = "cut after " + cutAfter + " ms, serving again " + servingAgain + " ms later";
                }
                connection.close();
                return figure;
            } finally {
                dataSource.stop();
            }
        }
    }

    @Test
    void aLongQueryOnAServerThatAnswersRunsToItsEnd() throws Exception {
        // three times the silence limit, and more: the server sends nothing while it runs
        long sleepSeconds = 3 * SILENCE_LIMIT_MILLIS / 1_000 + 1;
        ManagedDataSource dataSource = PoolConfiguration.HIKARI_FAULT_HANDLING.build(database,
            "it-dead-session-long-query", 2, MAX_WAIT, new MetricRegistry());
        dataSource.start();
        try {
            long started = System.nanoTime();
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                 ResultSet result = statement.executeQuery("SELECT pg_sleep(" + sleepSeconds + "), 42")) {
                assertThat(result.next()).isTrue();
                assertThat(result.getInt(2)).isEqualTo(42);
            }
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(tookMillis).isGreaterThanOrEqualTo(sleepSeconds * 1_000);
            report.record("PostgreSQL: a " + sleepSeconds + " s query (`pg_sleep`) on a server that answers, no "
                    + "`networkTimeout`, the session check's defaults: its result",
                PoolConfiguration.HIKARI_FAULT_HANDLING, "returned its row after " + tookMillis + " ms");
        } finally {
            dataSource.stop();
        }
    }

    /**
     * The check's own connection counts within {@code maxSize}: under borrowers that exhaust the pool and hold their
     * connections past the check's interval (so the check opens its connection), the application's sessions on the
     * server never pass {@code maxSize}, and the pool's reported maximum is what it lends.
     */
    @Test
    void thePoolAndItsCheckNeverOpenMoreThanMaxSize() throws Exception {
        int maxSize = 3;
        String name = "it-dead-session-within-max-size";
        HikariDataSourceFactory factory = PoolConfiguration.HIKARI_FAULT_HANDLING.hikariFactory(database, maxSize,
            Duration.seconds(1));
        // the check's connection takes the pool's properties, so both carry this name in pg_stat_activity
        factory.setProperties(java.util.Map.of("ApplicationName", name));
        MetricRegistry metrics = new MetricRegistry();
        ManagedDataSource dataSource = factory.build(metrics, name);
        dataSource.start();
        int most;
        try {
            try (Connection observer = database.connect();
                 java.sql.PreparedStatement count = observer.prepareStatement(
                     "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?")) {
                count.setString(1, name);
                most = Requests.mostSessionsWhileExhausted(dataSource, maxSize, "SELECT pg_sleep(1.5)", count);
            }
            assertThat(metrics.getGauges().get(name + ".pool.MaxConnections").getValue())
                .as("the pool's reported maximum: what it lends beside the check's connection").isEqualTo(maxSize - 1);
        } finally {
            dataSource.stop();
        }
        assertThat(most).as("the most sessions of the pool and its check at once (the check ran: one more than the "
            + "pool lends)").isEqualTo(maxSize);
        report.record("PostgreSQL: borrowers that exhaust a pool of `maxSize: 3` and hold each connection 1.5 s (past "
                + "the session check's interval): the most sessions of the pool and its check in pg_stat_activity",
            PoolConfiguration.HIKARI_FAULT_HANDLING, most + " (the pool lends " + (maxSize - 1)
                + ", the check holds one)");
    }

    private record Read(long borrowedNanos, String server) {
    }

    /**
     * The cloud-DNS shape: the address leads to server B from now on, and A stays up, read-only, its sessions kept.
     * One block, two pools: one writes, one only reads and never sees a refused write. After the first evidence
     * (a write refused as read-only, or a borrow that finds the server reporting itself read-only), no read borrowed
     * later may come from A.
     */
    @Test
    void noReadIsServedByADemotedPrimaryAfterTheFirstEvidence() throws Exception {
        for (PoolConfiguration pool : PoolConfiguration.values()) {
            TestDatabase a = server(serverA);
            TestDatabase b = server(serverB);
            for (TestDatabase server : new TestDatabase[] {a, b}) {
                execute(server, "ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()",
                    "DROP TABLE IF EXISTS origin", "CREATE TABLE origin (name TEXT)",
                    "INSERT INTO origin VALUES ('" + (server == a ? "A" : "B") + "')",
                    "DROP TABLE IF EXISTS writes", "CREATE TABLE writes (id SERIAL PRIMARY KEY)");
            }
            try (TcpProxy proxy = new TcpProxy(a.hostAndPort())) {
                TestDatabase proxied = a.through(proxy.hostAndPort());
                ManagedDataSource writes;
                ManagedDataSource reads;
                if (pool.isHikari()) {
                    HikariDataSourceFactory factory = pool.hikariFactory(proxied, 2, MAX_WAIT);
                    writes = factory.build(new MetricRegistry(), "it-role-writes-" + pool.label());
                    reads = factory.build(new MetricRegistry(), "it-role-reads-" + pool.label());
                } else {
                    writes = pool.build(proxied, "it-role-writes-" + pool.label(), 2, MAX_WAIT, new MetricRegistry());
                    reads = pool.build(proxied, "it-role-reads-" + pool.label(), 2, MAX_WAIT, new MetricRegistry());
                }
                writes.start();
                reads.start();
                AtomicBoolean running = new AtomicBoolean(true);
                AtomicLong firstEvidence = new AtomicLong();
                AtomicLong firstWriteAfter = new AtomicLong();
                AtomicLong switched = new AtomicLong(Long.MAX_VALUE);
                ConcurrentLinkedQueue<Read> served = new ConcurrentLinkedQueue<>();
                ExecutorService loops = Executors.newFixedThreadPool(2);
                try {
                    loops.execute(() -> {
                        while (running.get()) {
                            try (Connection connection = writes.getConnection();
                                 Statement statement = connection.createStatement()) {
                                statement.executeUpdate("INSERT INTO writes DEFAULT VALUES");
                                if (System.nanoTime() > switched.get() && firstEvidence.get() != 0) {
                                    firstWriteAfter.compareAndSet(0, System.nanoTime());
                                }
                            } catch (SQLException e) {
                                if ("25006".equals(e.getSQLState())) {
                                    firstEvidence.compareAndSet(0, System.nanoTime());
                                }
                            }
                            pause();
                        }
                    });
                    loops.execute(() -> {
                        while (running.get()) {
                            long borrowed = System.nanoTime();
                            try (Connection connection = reads.getConnection();
                                 Statement statement = connection.createStatement();
                                 ResultSet row = statement.executeQuery("SELECT name FROM origin")) {
                                row.next();
                                served.add(new Read(borrowed, row.getString(1)));
                            } catch (SQLException e) {
                                if ("25006".equals(e.getSQLState())) {
                                    firstEvidence.compareAndSet(0, System.nanoTime());
                                }
                            }
                            pause();
                        }
                    });
                    TimeUnit.MILLISECONDS.sleep(1_000);
                    execute(a, "ALTER SYSTEM SET default_transaction_read_only = on", "SELECT pg_reload_conf()");
                    proxy.retarget(b.hostAndPort());
                    switched.set(System.nanoTime());
                    TimeUnit.MILLISECONDS.sleep(3_000);
                } finally {
                    running.set(false);
                    loops.shutdown();
                    loops.awaitTermination(10, TimeUnit.SECONDS);
                    writes.stop();
                    reads.stop();
                    execute(a, "ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()");
                }
                long evidence = firstEvidence.get();
                long staleReads = served.stream().filter(read -> evidence != 0 && read.borrowedNanos() > evidence
                    && read.server().equals("A")).count();
                long readsFromA = served.stream().filter(read -> read.borrowedNanos() > switched.get()
                    && read.server().equals("A")).count();
                String figure = (evidence == 0 ? "no evidence seen" : "first evidence "
                    + TimeUnit.NANOSECONDS.toMillis(evidence - switched.get()) + " ms after the switch")
                    + ", writes again " + (firstWriteAfter.get() == 0 ? "never"
                    : TimeUnit.NANOSECONDS.toMillis(firstWriteAfter.get() - evidence) + " ms after it")
                    + "; reads from the old primary after the switch " + readsFromA + ", after the first evidence "
                    + staleReads;
                report.record("PostgreSQL, one block of two pools (one writes, one only reads), the address switched "
                    + "to server B while A stays up read-only with its sessions (a cached DNS answer after a cloud "
                    + "failover): first evidence, first write after it, reads served by A", pool, figure);
                if (pool == PoolConfiguration.HIKARI_FAULT_HANDLING) {
                    assertThat(evidence).as("evidence seen").isNotZero();
                    assertThat(staleReads).as("reads borrowed after the first evidence and served by A").isZero();
                    assertThat(firstWriteAfter.get()).as("a write succeeded after the evidence").isNotZero();
                } else {
                    assertThat(readsFromA).as("the core alone, Tomcat's pool: the read pool stays on A").isPositive();
                }
            }
        }
    }

    /**
     * Read-only evidence found by one block reaches every pool of the application with {@code fault-handling} whose
     * URL reaches the same server: a block that names the server by its address rather than its host name (and does
     * not set {@code failoverEviction}) is retired with it; a block that asks for a standby
     * ({@code readOnlyByDefault}) and a block on another server keep their sessions.
     */
    @Test
    void failoverEvidenceReachesEveryPoolOfTheApplicationOnThatServer() throws Exception {
        TestDatabase a = server(serverA);
        TestDatabase aByAddress = a.through(a.hostAndPort().replace("localhost", "127.0.0.1"));
        TestDatabase b = server(serverB);
        execute(a, "ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()",
            "DROP TABLE IF EXISTS writes", "CREATE TABLE writes (id SERIAL PRIMARY KEY)");
        ch.qos.logback.classic.Logger roleLog = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory
            .getLogger("io.github.dropwizardhikari.faulthandling.ServerRole");
        ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> logged =
            new ch.qos.logback.core.read.ListAppender<>();
        logged.start();
        roleLog.addAppender(logged);
        // the suite's logging is quiet: the WARN that names the pools retired is read here
        ch.qos.logback.classic.Level level = roleLog.getLevel();
        roleLog.setLevel(ch.qos.logback.classic.Level.WARN);
        // one application: the blocks' pools share its registry
        MetricRegistry application = new MetricRegistry();
        java.util.Map<String, TestDatabase> servers = new java.util.LinkedHashMap<>();
        java.util.Map<String, ManagedDataSource> pools = new java.util.LinkedHashMap<>();
        try {
            HikariDataSourceFactory writes = PoolConfiguration.HIKARI_FAULT_HANDLING.hikariFactory(a, 2, MAX_WAIT);
            HikariDataSourceFactory reads = PoolConfiguration.hikari(aByAddress, 2, MAX_WAIT);
            reads.setExtensions(java.util.List.of(new io.github.dropwizardhikari.faulthandling
                .FaultHandlingExtension()));
            HikariDataSourceFactory standby = PoolConfiguration.HIKARI_FAULT_HANDLING.hikariFactory(aByAddress, 2,
                MAX_WAIT);
            standby.setReadOnlyByDefault(true);
            HikariDataSourceFactory other = PoolConfiguration.HIKARI_FAULT_HANDLING.hikariFactory(b, 2, MAX_WAIT);
            for (Object[] block : new Object[][] {{"it-reach-writes", writes, a}, {"it-reach-reads", reads, a},
                {"it-reach-standby", standby, a}, {"it-reach-other", other, b}}) {
                String name = (String) block[0];
                HikariDataSourceFactory factory = (HikariDataSourceFactory) block[1];
                factory.setProperties(java.util.Map.of("ApplicationName", name));
                ManagedDataSource pool = factory.build(application, name);
                pool.start();
                pools.put(name, pool);
                servers.put(name, (TestDatabase) block[2]);
            }
            java.util.Map<String, java.util.Set<Long>> before = new java.util.HashMap<>();
            for (String name : pools.keySet()) {
                Requests.await(name + " has its sessions open", 10_000, () -> Requests.selectOne(pools.get(name))
                    && !sessionsNow(servers.get(name), name).isEmpty());
                before.put(name, sessions(servers.get(name), name));
            }

            execute(a, "ALTER SYSTEM SET default_transaction_read_only = on", "SELECT pg_reload_conf()");
            String evidence = null;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (evidence == null && System.nanoTime() < until) {
                try (Connection connection = pools.get("it-reach-writes").getConnection();
                     Statement statement = connection.createStatement()) {
                    statement.executeUpdate("INSERT INTO writes DEFAULT VALUES");
                } catch (SQLException e) {
                    if ("25006".equals(e.getSQLState())) {
                        evidence = e.getMessage();
                    }
                }
                pause();
            }
            assertThat(evidence).as("the writing block found the server read-only").isNotNull();

            Requests.await("the reading block's sessions on the same server are closed", 10_000, () -> {
                java.util.Set<Long> left = sessionsNow(a, "it-reach-reads");
                left.retainAll(before.get("it-reach-reads"));
                return left.isEmpty();
            });
            TimeUnit.MILLISECONDS.sleep(500);
            assertThat(sessions(a, "it-reach-standby")).as("the standby block's sessions")
                .containsAll(before.get("it-reach-standby"));
            assertThat(sessions(b, "it-reach-other")).as("the sessions of the block on another server")
                .containsAll(before.get("it-reach-other"));
            assertThat(logged.list).map(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
                .anySatisfy(line -> assertThat(line).startsWith("Pool it-reach-writes: ").contains("retired too")
                    .endsWith("it-reach-reads"));
        } finally {
            roleLog.detachAppender(logged);
            roleLog.setLevel(level);
            pools.values().forEach(pool -> {
                try {
                    pool.stop();
                } catch (Exception e) {
                    // the next pool still stops
                }
            });
            execute(a, "ALTER SYSTEM RESET default_transaction_read_only", "SELECT pg_reload_conf()");
        }
    }

    private static java.util.Set<Long> sessionsNow(TestDatabase server, String applicationName) {
        try {
            return sessions(server, applicationName);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static java.util.Set<Long> sessions(TestDatabase server, String applicationName) throws SQLException {
        java.util.Set<Long> pids = new java.util.HashSet<>();
        try (Connection connection = server.connect();
             java.sql.PreparedStatement statement = connection.prepareStatement(
                 "SELECT pid FROM pg_stat_activity WHERE application_name = ?")) {
            statement.setString(1, applicationName);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    pids.add(rows.getLong(1));
                }
            }
        }
        return pids;
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void execute(TestDatabase database, String... commands) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            for (String command : commands) {
                statement.execute(command);
            }
        }
    }
}
