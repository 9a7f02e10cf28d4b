package io.github.dropwizardhikari.it.faults;

import io.dropwizard.testing.DropwizardTestSupport;
import io.github.dropwizardhikari.example.db.IsValidValidator;
import io.github.dropwizardhikari.it.dropin.Commands;
import io.github.dropwizardhikari.it.db.DatabaseKind;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.dropin.DropInApp;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Jdbi + Hibernate application ({@link DropInApp}) on a database reached through a {@link TcpProxy} that goes
 * silent without closing anything, under four request loops, and what it measured: the slowest request, when it
 * serves again, the admin {@code /healthcheck}'s answer time, and what is left after {@code stop()} (server
 * connections, pool threads). Short settings: {@code maxSize: 4}, {@code maxWaitForConnection: 2s},
 * {@code networkTimeout: 3s}, {@code validationQueryTimeout: 1s} (in both blocks, {@code hikari:} and
 * {@code database:}).
 */
final class SilentApplication {
    static final long MAX_WAIT_MILLIS = 2_000;
    static final long NETWORK_TIMEOUT_MILLIS = 3_000;
    // bounds Dropwizard's own checks (jdbi, hibernate) and, under hikari:, the pool's connection test and own check
    static final long VALIDATION_TIMEOUT_MILLIS = 1_000;
    static final long ABANDON_MILLIS = 3_000;
    // what a request may take with the core's bound: a borrow's wait, then one call's silence
    static final long REQUEST_BOUND_MILLIS = MAX_WAIT_MILLIS + NETWORK_TIMEOUT_MILLIS;
    // the pool's connectivity check: its timeout (the validation timeout) and one test
    static final long CHECK_BOUND_MILLIS = VALIDATION_TIMEOUT_MILLIS + VALIDATION_TIMEOUT_MILLIS;
    static final long SILENT_THEN_BACK_MILLIS = 8_000;
    static final long NEW_ADDRESS_AFTER_MILLIS = 1_000;
    static final long WATCH_MILLIS = 15_000;
    private static final int LOOPS = 4;

    /**
     * The shapes of silence: silent, then back; silent for good while new connections answer; and that with the
     * server ending the application's sessions as the silence begins, so the server the address leads to holds none
     * of them (its restart, or the old server of a failover to a new address).
     */
    enum Shape { SILENT_THEN_BACK, SILENT_FOR_GOOD, SESSIONS_ENDED }

    /** What one run measured; {@code servingAgainMillis} is -1 when the application did not serve again. */
    record Run(long slowestMillis, boolean stillHeld, int failed, int served, long servingAgainMillis,
               String servingAgainFrom, long slowestHealthMillis, long slowestPoolCheckMillis,
               int leftConnections, int leftThreads, String stop) {
        String figure() {
            return "slowest " + (stillHeld ? "still held after " : "") + slowestMillis + " ms, " + failed + " of "
                + (failed + served) + " failed, " + (servingAgainMillis < 0 ? "not serving " + WATCH_MILLIS / 1_000
                + " s after" : "serving again " + servingAgainMillis + " ms after " + servingAgainFrom)
                + ", /healthcheck " + slowestHealthMillis + " ms" + (slowestPoolCheckMillis < 0 ? ""
                : " (the pool's `ConnectivityCheck` alone " + slowestPoolCheckMillis + " ms)") + ", " + leftConnections
                + " connections and " + leftThreads + " pool threads left" + stop;
        }
    }

    private final HttpClient http = HttpClient.newHttpClient();
    private final TestDatabase database;

    private SilentApplication(TestDatabase database) {
        this.database = database;
    }

    /** @return the application on {@code database}, its tables created by its {@code db migrate} command */
    static SilentApplication migrated(TestDatabase database) throws Exception {
        SilentApplication application = new SilentApplication(database);
        Commands.run(new DropInApp(), "db", "migrate",
            config(database, PoolConfiguration.HIKARI, false, "it-silent-migrate", NETWORK_TIMEOUT_MILLIS).toString());
        return application;
    }

    TestDatabase database() {
        return database;
    }

    /**
     * This bundle's pool when the open connections stay silent for good and new ones answer: no request waits past
     * the bound, it serves again once the bound has passed and a connection is open, and its stop leaves nothing.
     */
    static void assertFailoverBounded(Run run) {
        assertThat(run.slowestMillis()).as("slowest request, ms").isLessThanOrEqualTo(REQUEST_BOUND_MILLIS + 1_000);
        // the bound, then a connection's creation (a second here, for a loaded machine), then the slack
        assertThat(run.servingAgainMillis()).as("ms until serving again after the silence began")
            .isBetween(0L, NETWORK_TIMEOUT_MILLIS + 2_000);
        assertHealth(run);
        assertThat(run.leftConnections()).as("server connections left").isZero();
        assertThat(run.leftThreads()).as("pool threads left").isZero();
    }

    /**
     * The pool's own check answers within its timeout, plus the connection test HikariCP 7.1 may start just before
     * it ends. Dropwizard's admin servlet runs the checks one after another, and Dropwizard bounds its Jdbi and
     * Hibernate checks by {@code validationQueryTimeout}: with 1 s, the page answers within a request's bound.
     */
    static void assertHealth(Run run) {
        assertThat(run.slowestPoolCheckMillis()).as("slowest jdbi.pool.ConnectivityCheck, ms")
            .isLessThanOrEqualTo(CHECK_BOUND_MILLIS + 1_000);
        assertThat(run.slowestHealthMillis()).as("slowest /healthcheck, ms")
            .isLessThanOrEqualTo(REQUEST_BOUND_MILLIS + 1_000);
    }

    Run run(PoolConfiguration pool, Shape shape, boolean removeAbandoned) throws Exception {
        return run(pool, shape, removeAbandoned, removeAbandoned ? 0 : NETWORK_TIMEOUT_MILLIS);
    }

    /** @param networkTimeoutMillis the {@code hikari:} block's {@code networkTimeout}, 0 for none */
    Run run(PoolConfiguration pool, Shape shape, boolean removeAbandoned, long networkTimeoutMillis)
        throws Exception {
        String applicationName = "it-silent-" + switch (shape) {
            case SILENT_THEN_BACK -> "back";
            case SILENT_FOR_GOOD -> "failover";
            case SESSIONS_ENDED -> "ended";
        } + (removeAbandoned ? "-abandon-" : "-") + pool.label();
        try (TcpProxy proxy = new TcpProxy(database.hostAndPort())) {
            DropwizardTestSupport<DropInApp.Config> app = new DropwizardTestSupport<>(DropInApp.class,
                config(database.through(proxy.hostAndPort()), pool, removeAbandoned, applicationName,
                    networkTimeoutMillis).toString());
            app.before();
            ConcurrentLinkedQueue<long[]> done = new ConcurrentLinkedQueue<>();
            AtomicLong[] inFlightSince = new AtomicLong[LOOPS];
            AtomicBoolean running = new AtomicBoolean(true);
            ExecutorService loops = Executors.newFixedThreadPool(LOOPS + 1);
            AtomicLong slowestHealth = new AtomicLong();
            AtomicLong slowestPoolCheck = new AtomicLong();
            AtomicBoolean silent = new AtomicBoolean();
            long silentAt;
            long answerAt;
            try {
                for (int i = 0; i < LOOPS; i++) {
                    AtomicLong since = inFlightSince[i] = new AtomicLong();
                    loops.execute(() -> requestLoop(app.getLocalPort(), running, since, done));
                }
                Requests.await("the application serves", 20_000, () -> done.stream().anyMatch(r -> r[2] == 1));
                loops.execute(() -> healthLoop(app, pool, running, silent, slowestHealth, slowestPoolCheck));
                TimeUnit.MILLISECONDS.sleep(500);
                proxy.silence();
                silent.set(true);
                silentAt = System.nanoTime();
                if (shape == Shape.SESSIONS_ENDED) {
                    endSessions(applicationName);
                }
                long fromSilence = shape == Shape.SILENT_THEN_BACK ? SILENT_THEN_BACK_MILLIS : NEW_ADDRESS_AFTER_MILLIS;
                long watchUntil = silentAt + TimeUnit.MILLISECONDS.toNanos(shape == Shape.SILENT_THEN_BACK
                    ? SILENT_THEN_BACK_MILLIS + 5_000 : WATCH_MILLIS);
                answerAt = silentAt + TimeUnit.MILLISECONDS.toNanos(fromSilence);
                boolean answered = false;
                while (System.nanoTime() < watchUntil) {
                    if (!answered && System.nanoTime() >= answerAt) {
                        if (shape == Shape.SILENT_THEN_BACK) {
                            proxy.answer();
                        } else {
                            proxy.answerNewOnly();
                        }
                        answered = true;
                    }
                    TimeUnit.MILLISECONDS.sleep(20);
                }
            } finally {
                running.set(false);
            }
            long now = System.nanoTime();
            long stillHeldFor = 0;
            for (AtomicLong since : inFlightSince) {
                long started = since.get();
                stillHeldFor = Math.max(stillHeldFor, started == 0 ? 0 : TimeUnit.NANOSECONDS.toMillis(now - started));
            }
            List<long[]> requests = new ArrayList<>(done);
            long slowest = requests.stream().filter(r -> r[1] >= silentAt)
                .mapToLong(r -> TimeUnit.NANOSECONDS.toMillis(r[1] - r[0])).max().orElse(0);
            int failed = (int) requests.stream().filter(r -> r[1] >= silentAt && r[2] == 0).count();
            int served = (int) requests.stream().filter(r -> r[1] >= silentAt && r[2] == 1).count();
            long from = shape == Shape.SILENT_THEN_BACK ? answerAt : silentAt;
            long servingAgain = requests.stream().filter(r -> r[2] == 1 && r[1] >= from && r[0] >= silentAt)
                .mapToLong(r -> TimeUnit.NANOSECONDS.toMillis(r[1] - from)).min().orElse(-1);
            String stop = "";
            try {
                app.after();
            } catch (RuntimeException e) {
                // Jetty stops everything, then reports that requests were still in flight after its grace period
                stop = " (requests still in flight when the server stopped)";
            }
            // what the stop left: the proxy lets a silenced connection go once its client closes it
            int left;
            int threads;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (((left = backends(applicationName)) > 0 | (threads = poolThreads()) > 0)
                && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(100);
            }
            proxy.close();
            loops.shutdown();
            assertThat(loops.awaitTermination(30, TimeUnit.SECONDS)).as("request loops ended").isTrue();
            return new Run(Math.max(slowest, stillHeldFor), stillHeldFor > slowest, failed, served, servingAgain,
                shape == Shape.SILENT_THEN_BACK ? "it answers" : "the silence began", slowestHealth.get(),
                pool.isHikari() ? slowestPoolCheck.get() : -1, left, threads, stop);
        }
    }

    /** Sends requests back to back; each done one is {start, end, 1 if served}. */
    private void requestLoop(int port, AtomicBoolean running, AtomicLong inFlightSince,
                             ConcurrentLinkedQueue<long[]> done) {
        while (running.get()) {
            long started = System.nanoTime();
            inFlightSince.set(started);
            boolean ok;
            try {
                ok = send("POST", port, "/counters?name=silent").statusCode() == 200;
            } catch (Exception e) {
                ok = false;
            }
            inFlightSince.set(0);
            done.add(new long[] {started, System.nanoTime(), ok ? 1 : 0});
            if (!ok) {
                try {
                    TimeUnit.MILLISECONDS.sleep(10);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    /**
     * Reads the admin {@code /healthcheck} every 500 ms, keeping the slowest answer once the silence began; for this
     * bundle's pools, runs the pool's own {@code ConnectivityCheck} after it, alone.
     */
    private void healthLoop(DropwizardTestSupport<DropInApp.Config> app, PoolConfiguration pool, AtomicBoolean running,
                            AtomicBoolean silent, AtomicLong slowestPage, AtomicLong slowestPoolCheck) {
        while (running.get()) {
            long started = System.nanoTime();
            try {
                send("GET", app.getAdminPort(), "/healthcheck");
            } catch (Exception e) {
                // its time is what counts
            }
            long page = System.nanoTime();
            if (pool.isHikari()) {
                app.getEnvironment().healthChecks().runHealthCheck("jdbi.pool.ConnectivityCheck");
            }
            if (silent.get()) {
                slowestPage.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(page - started), Math::max);
                slowestPoolCheck.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - page), Math::max);
            }
            try {
                TimeUnit.MILLISECONDS.sleep(500);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private HttpResponse<String> send(String method, int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(java.time.Duration.ofSeconds(90)).method(method, HttpRequest.BodyPublishers.noBody()).build(),
            HttpResponse.BodyHandlers.ofString());
    }

    /**
     * @return the server connections of the application named {@code applicationName} (PostgreSQL), or of any
     * client but this one in the database (MariaDB, whose driver sends no application name; its runs do not overlap)
     */
    int backends(String applicationName) throws SQLException {
        boolean postgres = database.kind() == DatabaseKind.POSTGRES;
        try (Connection admin = database.connect(); PreparedStatement statement = admin.prepareStatement(postgres
                ? "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = ?"
                : "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = ? AND ID <> CONNECTION_ID()")) {
            statement.setString(1, postgres ? applicationName : database.namespace());
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getInt(1);
            }
        }
    }

    /**
     * Ends the application's sessions on the server (PostgreSQL: by application name; MariaDB: every other session
     * in the database), as a restart of the server would; through the proxy, their clients hear nothing of it.
     */
    private void endSessions(String applicationName) throws SQLException {
        boolean postgres = database.kind() == DatabaseKind.POSTGRES;
        try (Connection admin = database.connect()) {
            if (postgres) {
                try (PreparedStatement statement = admin.prepareStatement(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?")) {
                    statement.setString(1, applicationName);
                    statement.executeQuery().close();
                }
                return;
            }
            List<Long> threads = new ArrayList<>();
            try (PreparedStatement statement = admin.prepareStatement("SELECT ID FROM information_schema.PROCESSLIST "
                + "WHERE DB = ? AND ID <> CONNECTION_ID()")) {
                statement.setString(1, database.namespace());
                try (ResultSet rows = statement.executeQuery()) {
                    while (rows.next()) {
                        threads.add(rows.getLong(1));
                    }
                }
            }
            for (long thread : threads) {
                try (java.sql.Statement kill = admin.createStatement()) {
                    kill.execute("KILL CONNECTION " + thread);
                } catch (SQLException e) {
                    // ended meanwhile
                }
            }
        }
    }

    /** @return the URL of {@code target} with the application's name where the driver reports it */
    static String named(TestDatabase target, String applicationName) {
        return target.kind() == DatabaseKind.POSTGRES
            ? TestDatabase.withParameter(target.url(), "ApplicationName", applicationName) : target.url();
    }

    /** The threads of the application's two pools ({@code jdbi}, {@code hibernate}), HikariCP's or this bundle's. */
    private static int poolThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> thread.getName().startsWith("jdbi") || thread.getName().startsWith("hibernate"))
            .count();
    }

    private static Path config(TestDatabase target, PoolConfiguration pool, boolean removeAbandoned,
                               String applicationName, long networkTimeoutMillis) throws Exception {
        String common = "  url: " + named(target, applicationName) + "\n  user: " + target.user()
            + "\n  password: \"" + target.password() + "\"\n  maxSize: 4\n  maxWaitForConnection: " + MAX_WAIT_MILLIS
            + "ms\n  validationQueryTimeout: " + VALIDATION_TIMEOUT_MILLIS + "ms\n"
            + (removeAbandoned ? "  removeAbandoned: true\n  removeAbandonedTimeout: " + ABANDON_MILLIS + "ms\n" : "");
        String tomcat = "database:\n  driverClass: " + target.kind().driverClass() + "\n" + common
            + "  minSize: 1\n  initialSize: 1\n";
        String block = switch (pool) {
            case HIKARI -> "hikari:\n" + common + "  networkTimeout: " + networkTimeoutMillis + "ms\n";
            case HIKARI_FAULT_HANDLING -> "hikari:\n" + common + "  networkTimeout: " + networkTimeoutMillis
                + "ms\n  extensions:\n    - type: fault-handling\n";
            case TOMCAT_DEFAULT -> tomcat;
            case TOMCAT_SAFE -> tomcat + "  autoCommitByDefault: true\n  readOnlyByDefault: false\n"
                + "  defaultTransactionIsolation: READ_COMMITTED\n  rollbackOnReturn: true\n"
                + "  checkConnectionOnBorrow: true\n  validationInterval: 500ms\n  validatorClassName: "
                + IsValidValidator.class.getName() + "\n  jdbcInterceptors: \"ConnectionState;StatementFinalizer\"\n";
        };
        Path file = Files.createTempFile("silent-database", ".yml");
        Files.writeString(file, block + "server:\n  shutdownGracePeriod: 1s\n  applicationConnectors:\n"
            + "    - type: http\n      port: 0\n  adminConnectors:\n    - type: http\n      port: 0\n"
            + "  requestLog:\n    appenders: []\nlogging:\n  level: WARN\n");
        return file;
    }

}
