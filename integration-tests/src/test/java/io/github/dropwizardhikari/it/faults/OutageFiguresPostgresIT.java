package io.github.dropwizardhikari.it.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.DropwizardTestSupport;
import io.github.dropwizardhikari.it.dropin.Commands;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import io.github.dropwizardhikari.it.dropin.DropInApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The figures an on-call engineer alerts on, from a Jdbi + Hibernate application on one {@code hikari:} block with
 * {@code fault-handling} named, while the database is cut off under it (a TCP proxy refuses and cuts): every failed
 * request is counted in its pool's {@code ConnectionTimeoutRate}; after the outage {@code ConnectionCreation}'s max
 * is a connection's time; the admin {@code /healthcheck} waits at the outage's first moment (Dropwizard's own
 * {@code jdbi} and {@code hibernate} checks borrow, each up to {@code maxWaitForConnection}), and Dropwizard's
 * {@code health:} block with scheduled checks answers at once throughout.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OutageFiguresPostgresIT {
    private static final long MAX_WAIT_MILLIS = 2_000;
    private static final long OUTAGE_MILLIS = 6_000;
    private static final String[] POOLS = {"jdbi", "hibernate"};

    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();
    private final FaultReport report = FaultReport.shared();
    private TestDatabase database;
    private TcpProxy proxy;
    private DropwizardTestSupport<DropInApp.Config> app;

    @BeforeAll
    void migrateAndStart() throws Exception {
        TestDatabase server = TestDatabases.postgres();
        database = server.isolated("it_outage_figures");
        Commands.run(new DropInApp(), "db", "migrate", config(database, "").toString());
        proxy = new TcpProxy(database.hostAndPort());
        // the checks Dropwizard's health: block runs on a schedule; its endpoint answers from the last run. It
        // names only checks registered when the server starts: a pool's own check exists once the pool has
        // started, which Hibernate's does in its bundle's run() and Jdbi's only with the server
        String scheduled = "health:\n  healthChecks:\n" + scheduled("jdbi") + scheduled("hibernate")
            + scheduled("hibernate.pool.ConnectivityCheck");
        app = new DropwizardTestSupport<>(DropInApp.class,
            config(database.through(proxy.hostAndPort()), scheduled).toString());
        app.before();
    }

    @AfterAll
    void stop() throws Exception {
        try {
            if (app != null) {
                app.after();
            }
        } finally {
            if (proxy != null) {
                proxy.close();
            }
            report.write(database.kind().displayName() + " (" + database.source() + ")");
        }
    }

    private static String scheduled(String check) {
        return "    - name: " + check + "\n      critical: true\n      schedule:\n        checkInterval: 500ms\n"
            + "        downtimeInterval: 500ms\n        failureAttempts: 1\n        successAttempts: 1\n";
    }

    private static Path config(TestDatabase target, String more) throws Exception {
        Path file = Files.createTempFile("outage-figures", ".yml");
        Files.writeString(file, "hikari:\n  url: " + target.url() + "\n  user: " + target.user()
            + "\n  password: \"" + target.password() + "\"\n  maxSize: 4\n  maxWaitForConnection: " + MAX_WAIT_MILLIS
            + "ms\n  extensions:\n    - type: fault-handling\n" + more
            + "server:\n  applicationConnectors:\n    - type: http\n      port: 0\n"
            + "  adminConnectors:\n    - type: http\n      port: 0\n  requestLog:\n    appenders: []\n"
            + "logging:\n  level: WARN\n");
        return file;
    }

    private HttpResponse<String> send(String method, int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(java.time.Duration.ofSeconds(60)).method(method, HttpRequest.BodyPublishers.noBody()).build(),
            HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode metrics() throws Exception {
        return json.readTree(send("GET", app.getAdminPort(), "/metrics").body());
    }

    private long failedBorrows(String pool) throws Exception {
        return metrics().get("meters").get(pool + ".pool.ConnectionTimeoutRate").get("count").asLong();
    }

    /** A page read: its answer time, and whether every check that needs the database was unhealthy. */
    private record Page(long millis, int status, boolean databaseChecksUnhealthy) {
    }

    private Page adminHealthCheck() throws Exception {
        long started = System.nanoTime();
        HttpResponse<String> response = send("GET", app.getAdminPort(), "/healthcheck");
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        JsonNode checks = json.readTree(response.body());
        boolean unhealthy = true;
        for (String pool : POOLS) {
            unhealthy &= !checks.get(pool).get("healthy").asBoolean()
                && !checks.get(pool + ".pool.ConnectivityCheck").get("healthy").asBoolean();
        }
        return new Page(millis, response.statusCode(), unhealthy);
    }

    private Page scheduledHealthCheck() throws Exception {
        long started = System.nanoTime();
        HttpResponse<String> response = send("GET", app.getLocalPort(), "/health-check");
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        return new Page(millis, response.statusCode(), response.statusCode() == 503);
    }

    @Test
    void theFiguresToAlertOnDuringAnOutage() throws Exception {
        assertThat(send("POST", app.getLocalPort(), "/counters?name=before").statusCode()).isEqualTo(200);
        assertThat(send("POST", app.getLocalPort(), "/notes?text=before").statusCode()).isEqualTo(200);
        Requests.await("the scheduled checks are healthy", 10_000, () -> {
            try {
                return scheduledHealthCheck().status() == 200;
            } catch (Exception e) {
                return false;
            }
        });
        long jdbiBefore = failedBorrows("jdbi");
        long hibernateBefore = failedBorrows("hibernate");

        proxy.mode(TcpProxy.Mode.REFUSE);
        proxy.cutAll();
        long outageStarted = System.nanoTime();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger jdbiFailed = new AtomicInteger();
        AtomicInteger hibernateFailed = new AtomicInteger();
        ExecutorService loops = Executors.newFixedThreadPool(3);
        loops.execute(() -> requestLoop(running, "POST", "/counters?name=during", jdbiFailed));
        loops.execute(() -> requestLoop(running, "POST", "/notes?text=during", hibernateFailed));
        // both pages read at the first moment, side by side
        Future<Page> adminFirstRead = loops.submit(this::adminHealthCheck);
        Page scheduledFirst = scheduledHealthCheck();
        Requests.await("the scheduled checks see the outage", 10_000, () -> {
            try {
                return scheduledHealthCheck().databaseChecksUnhealthy();
            } catch (Exception e) {
                return false;
            }
        });
        long scheduledUnhealthyAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - outageStarted);
        Page adminFirst = adminFirstRead.get(30, TimeUnit.SECONDS);
        long slowestScheduled = 0;
        while (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - outageStarted) < OUTAGE_MILLIS) {
            Page page = scheduledHealthCheck();
            assertThat(page.databaseChecksUnhealthy()).isTrue();
            slowestScheduled = Math.max(slowestScheduled, page.millis());
            TimeUnit.MILLISECONDS.sleep(100);
        }
        Page adminLater = adminHealthCheck();
        running.set(false);
        loops.shutdown();
        assertThat(loops.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        long jdbiCounted = failedBorrows("jdbi") - jdbiBefore;
        long hibernateCounted = failedBorrows("hibernate") - hibernateBefore;
        proxy.mode(TcpProxy.Mode.FORWARD);
        long recovery = Requests.await("the application serves again", 15_000, () -> {
            try {
                return send("POST", app.getLocalPort(), "/counters?name=after").statusCode() == 200
                    && send("POST", app.getLocalPort(), "/notes?text=after").statusCode() == 200;
            } catch (Exception e) {
                return false;
            }
        });
        JsonNode after = metrics().get("histograms");
        long jdbiCreation = after.get("jdbi.pool.ConnectionCreation").get("max").asLong();
        long hibernateCreation = after.get("hibernate.pool.ConnectionCreation").get("max").asLong();

        report.record("Jdbi + Hibernate application, one `hikari:` block with `fault-handling`, "
            + "`maxWaitForConnection: 2s`, database cut off for 6 s under a request loop per pool: failed requests "
            + "and the pool's `ConnectionTimeoutRate` (jdbi; hibernate), `ConnectionCreation` max after it, admin "
            + "`/healthcheck` at the first moment and later, `health:` block's `/health-check`", 
            io.github.dropwizardhikari.it.pools.PoolConfiguration.HIKARI_FAULT_HANDLING,
            jdbiFailed.get() + " failed, " + jdbiCounted + " counted; " + hibernateFailed.get() + " failed, "
                + hibernateCounted + " counted; ConnectionCreation max " + jdbiCreation + " / " + hibernateCreation
                 + " ms; /healthcheck " + adminFirst.millis() + " ms at the first moment ("
                + (adminFirst.databaseChecksUnhealthy() ? "all unhealthy" : "not all unhealthy yet") + "), " + adminLater.millis()
                + " ms later; /health-check " + scheduledFirst.millis()  + " ms at the first moment, unhealthy "
                + scheduledUnhealthyAfter + " ms after the cut, slowest " + slowestScheduled + " ms; served again "
                + recovery + " ms after");

        // every failed request is counted by its pool; the rest of the count is the health checks' own borrows
        // (two a page read: Dropwizard's check and the pool's connectivity check)
        assertThat(jdbiFailed.get()).isPositive();
        assertThat(hibernateFailed.get()).isPositive();
        assertThat(jdbiCounted).as("jdbi's failed borrows counted").isBetween((long) jdbiFailed.get(),
            jdbiFailed.get() + 4L + scheduledRuns(outageStarted));
        assertThat(hibernateCounted).as("hibernate's failed borrows counted").isBetween((long) hibernateFailed.get(),
            hibernateFailed.get() + 4L + scheduledRuns(outageStarted));
        // a connection's time, not the outage's 6 s (the margin is for a loaded 2-core machine at start)
        assertThat(jdbiCreation).as("jdbi ConnectionCreation max, ms").isLessThan(1_000);
        assertThat(hibernateCreation).as("hibernate ConnectionCreation max, ms").isLessThan(1_000);
        // the trade-off: at the outage's first moment Dropwizard's jdbi and hibernate checks each wait up to
        // maxWaitForConnection for a borrow that began before the pool knew (a check that meets a connection the
        // cut has not yet shown dead answers sooner, and may still read healthy); once it knows, the page is
        // instant and every check that needs the database unhealthy
        assertThat(adminFirst.millis()).as("admin /healthcheck at the first moment, ms")
            .isLessThanOrEqualTo(2 * MAX_WAIT_MILLIS + 1_000);
        assertThat(adminLater.databaseChecksUnhealthy()).isTrue();
        assertThat(adminLater.millis()).as("admin /healthcheck later, ms").isLessThan(1_000);
        // the health: block's endpoint answers from its last scheduled run: at once, from the first moment
        assertThat(scheduledFirst.millis()).as("/health-check at the first moment, ms").isLessThan(1_000);
        assertThat(slowestScheduled).as("slowest /health-check during the outage, ms").isLessThan(1_000);
        assertThat(scheduledUnhealthyAfter).as("ms until /health-check reads unhealthy")
            .isLessThanOrEqualTo(MAX_WAIT_MILLIS + 2_000);
    }

    /** The scheduled checks' runs since the outage began: each run borrows, twice per pool at most. */
    private static long scheduledRuns(long since) {
        return 2 * (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since) / 500 + 1);
    }

    private void requestLoop(AtomicBoolean running, String method, String path, AtomicInteger failed) {
        while (running.get()) {
            try {
                if (send(method, app.getLocalPort(), path).statusCode() != 200) {
                    failed.incrementAndGet();
                    TimeUnit.MILLISECONDS.sleep(10);
                }
            } catch (Exception e) {
                failed.incrementAndGet();
            }
        }
    }
}
