package io.github.dropwizardhikari.it.order;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.Counter;
import com.codahale.metrics.Counting;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Sampling;
import io.dropwizard.testing.DropwizardTestSupport;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every extension that runs on a local PostgreSQL, listed in four orders (one, its reverse, two shuffles), through
 * one scenario on {@link OrderApp}: borrows returned, a connection closed through its statement, the pool's lendable
 * connections held by two requests while the admin tasks list them and a third borrow is refused after
 * {@code maxWaitForConnection}, a request refused by {@code admission}, the health checks run, the application
 * stopped. What the extensions report is the same in every order: the pool's metrics (kind, reservoir, count or gauge
 * value), each health check's result, the refused borrow's message, the admin tasks' answers, and each line the
 * loggers under {@code io.github.dropwizardhikari} logged of the pool, with durations, ports and thread names blanked.
 * HikariCP's four gauges of the pool's connections are compared by name alone: HikariCP reads them at most once a
 * second. The pool's start line names the extensions as listed; it is compared with the list sorted.
 * <p>The one difference allowed is the one {@code check} warns of, {@code fair-borrowing} listed before
 * {@code fault-handling}: its warning is logged for exactly those orders.</p>
 */
class ExtensionOrderPostgresIT {
    private static final String POOL = OrderApp.POOL;
    private static final String FAIR = "fair-borrowing";
    private static final String FAULTS = "fault-handling";
    private static final List<List<String>> ORDERS = List.of(
        List.of(FAIR, FAULTS, "holders", "operations", "hdr-metrics", "admission", "credential-files"),
        List.of("credential-files", "admission", "hdr-metrics", "operations", "holders", FAULTS, FAIR),
        List.of("holders", "credential-files", FAULTS, "hdr-metrics", FAIR, "admission", "operations"),
        List.of("operations", FAIR, "admission", "holders", "credential-files", "hdr-metrics", FAULTS));
    private static final String FACTORY_LOGGER = "io.github.dropwizardhikari.HikariDataSourceFactory";
    private static final String PLACE_WARNING = "log WARN " + FACTORY_LOGGER + ": hikari.extensions: "
        + "fair-borrowing is listed before fault-handling";
    private static final String LISTED = "extensions: ";
    // HikariCP 7.1 reads these for its gauges at most once a second, so their value tells when they were first read,
    // as early as the pool's start; operations' Tomcat-named gauges of the same counts are read when asked
    private static final String CACHED_GAUGES = POOL + "\\.pool\\.(Total|Idle|Active|Pending)Connections";

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void everyExtensionReportsTheSameInEveryOrder() throws Exception {
        Map<String, String> first = null;
        for (List<String> order : ORDERS) {
            long start = System.nanoTime();
            Map<String, String> report = run(order);
            System.out.printf("%s: %d ms%n", order, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            boolean warned = report.keySet().stream().anyMatch(key -> key.startsWith(PLACE_WARNING));
            assertThat(warned).as("the place warning for %s", order)
                .isEqualTo(order.indexOf(FAIR) < order.indexOf(FAULTS));
            report.keySet().removeIf(key -> key.startsWith(PLACE_WARNING));
            if (first == null) {
                first = report;
                report.forEach((key, value) -> System.out.println(key + " = " + value));
                ranInFirst(report);
            }
            List<String> differences = new ArrayList<>();
            for (String key : union(first, report)) {
                if (!String.valueOf(first.get(key)).equals(String.valueOf(report.get(key)))) {
                    differences.add(key + "\n    in " + ORDERS.get(0) + ": " + first.get(key) + "\n    in " + order
                        + ": " + report.get(key));
                }
            }
            assertThat(differences).as("what the extensions report in %s, against %s", order, ORDERS.get(0))
                .isEmpty();
        }
    }

    /** What each extension reported in the first order: each of them ran, so the orders compare something. */
    private static void ranInFirst(Map<String, String> report) {
        String prefix = "metric " + POOL + ".pool.";
        assertThat(report.get(prefix + "GateWait")).as(FAIR).startsWith("Timer ");
        // its session check keeps one connection of maxSize: 3
        assertThat(report.get("lent")).as(FAULTS).isEqualTo("2");
        assertThat(report.keySet()).as(FAULTS).anyMatch(key -> key.startsWith("log INFO "
            + "io.github.dropwizardhikari.faulthandling.DeadSessionCheck: Pool " + POOL + ": sessions checked"));
        assertThat(report.get("refused")).as("holders").contains("Holders now, longest first:",
            "  GET /hold/{n}: " + report.get("lent") + " connections, longest ");
        assertThat(report.get(prefix + "Holders.GET /borrow.Borrows")).as("holders").endsWith(" count 3");
        assertThat(report.get(prefix + "Holders.GET /statement-close.Borrows")).as("holders").endsWith(" count 1");
        assertThat(report.get("task pool-status")).as("operations, credential-files")
            .contains("credentials: io.github.dropwizardhikari.credentialfiles.FileCredentialsProvider");
        assertThat(report.get("metric io.dropwizard.db.ManagedPooledDataSource." + POOL + ".borrowed")).as("operations")
            .startsWith("gauge ");
        assertThat(report.get(prefix + "Wait")).as("hdr-metrics").contains("Hdr");
        assertThat(report.get("admission refused")).as("admission").isEqualTo("503");
        assertThat(report.get("metric " + POOL + ".admission.rejected")).as("admission").isEqualTo("Meter count 1");
    }

    private static List<String> union(Map<String, String> a, Map<String, String> b) {
        TreeMap<String, String> keys = new TreeMap<>(a);
        keys.putAll(b);
        return List.copyOf(keys.keySet());
    }

    /** @return what the extensions reported through the scenario, by what reported it */
    private Map<String, String> run(List<String> order) throws Exception {
        TestDatabase database = TestDatabases.postgres();
        Path userFile = Files.createTempFile("order-user", ".txt");
        Path config = Files.createTempFile("order", ".yml");
        Logger extensions = (Logger) LoggerFactory.getLogger("io.github.dropwizardhikari");
        Level level = extensions.getLevel();
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        log.start();
        extensions.setLevel(Level.INFO);
        extensions.addAppender(log);
        Map<String, String> report = new TreeMap<>();
        try {
            Files.writeString(userFile, database.user());
            StringBuilder entries = new StringBuilder();
            for (String type : order) {
                entries.append("    - type: ").append(type).append('\n').append(switch (type) {
                    // one request at a time and none waiting: the second is answered 503 at once
                    case "admission" -> "      paths: [\"/admitted/*\"]\n      maxConcurrentRequests: 1\n"
                        + "      maxWaitingRequests: 0\n";
                    case "operations" -> "      tomcatMetricNames: true\n";
                    case "credential-files" -> "      userFile: " + userFile + "\n";
                    default -> "";
                });
            }
            Files.writeString(config, "hikari:\n"
                + "  url: " + database.url() + "\n"
                + "  password: " + database.password() + "\n"
                + "  maxSize: 3\n"
                + "  minSize: 3\n"
                + "  maxWaitForConnection: 1 second\n"
                + "  extensions:\n" + entries
                + "server:\n  shutdownGracePeriod: 0 seconds\n"
                + "  applicationConnectors:\n    - type: http\n      port: 0\n"
                + "  adminConnectors:\n    - type: http\n      port: 0\n  requestLog:\n    appenders: []\n"
                // the test's logback configuration stays, so that what is logged before the server starts is seen
                + "logging:\n  type: external\n");
            DropwizardTestSupport<OrderApp.Config> app = new DropwizardTestSupport<>(OrderApp.class,
                config.toString());
            app.before();
            try {
                scenario(app, report);
            } finally {
                app.after();
            }
            List<ILoggingEvent> events = List.copyOf(log.list);
            for (ILoggingEvent event : events) {
                // the factory's warnings name the block; every other line names its pool
                if (!event.getLoggerName().equals(FACTORY_LOGGER) && !event.getFormattedMessage().contains(POOL)) {
                    continue;
                }
                // keyed by logger and message, so that the order of lines from different threads does not count
                report.merge("log " + event.getLevel() + " " + event.getLoggerName() + ": "
                    + normal(listedSorted(event.getFormattedMessage())), "1",
                    (a, b) -> String.valueOf(Integer.parseInt(a) + 1));
            }
            return report;
        } finally {
            extensions.detachAppender(log);
            extensions.setLevel(level);
            Files.deleteIfExists(config);
            Files.deleteIfExists(userFile);
        }
    }

    private void scenario(DropwizardTestSupport<OrderApp.Config> app, Map<String, String> report) throws Exception {
        OrderApp orderApp = app.getApplication();
        for (int i = 0; i < 3; i++) {
            assertThat(get(app, "/borrow").body()).isEqualTo("true");
        }
        assertThat(get(app, "/statement-close").body()).isEqualTo("true");

        // fault-handling's session check keeps one of maxSize for itself: the pool lends 2
        MetricRegistry metrics = app.getEnvironment().metrics();
        int lent = ((Number) metrics.getGauges().get(POOL + ".pool.MaxConnections").getValue()).intValue();
        report.put("lent", String.valueOf(lent));
        List<CompletableFuture<HttpResponse<String>>> holds = new ArrayList<>();
        for (int i = 0; i < lent; i++) {
            holds.add(getAsync(app, "/hold/" + i));
        }
        assertThat(orderApp.holding.tryAcquire(lent, 30, TimeUnit.SECONDS)).as("held").isTrue();
        report.put("task pool-holders", normal(task(app, "pool-holders?pool=" + POOL)));
        report.put("task pool-status", normal(task(app, "pool-status")));
        HttpResponse<String> refused = get(app, "/refused");
        report.put("refused", refused.statusCode() + " " + normal(refused.body()));
        orderApp.letGo.countDown();
        for (CompletableFuture<HttpResponse<String>> hold : holds) {
            assertThat(hold.join().body()).isEqualTo("true");
        }

        CompletableFuture<HttpResponse<String>> admitted = getAsync(app, "/admitted/wait");
        assertThat(orderApp.admittedWaiting.tryAcquire(30, TimeUnit.SECONDS)).as("admitted").isTrue();
        report.put("admission refused", String.valueOf(get(app, "/admitted/borrow").statusCode()));
        orderApp.admittedLetGo.countDown();
        assertThat(admitted.join().body()).isEqualTo("true");
        // admission counts a request out once Jetty has completed it, which may be after the client has its answer
        Counter inside = metrics.getCounters().get(POOL + ".admission.inside");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (inside.getCount() != 0 && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(5);
        }

        app.getEnvironment().healthChecks().runHealthChecks().forEach((name, result) -> report.put("health " + name,
            result.isHealthy() + " " + normal(String.valueOf(result.getMessage()))));
        metrics.getMetrics().forEach((name, metric) -> {
            if (name.matches(CACHED_GAUGES)) {
                report.put("metric " + name, "gauge");
            } else if (name.contains(POOL)) {
                report.put("metric " + name, describe(metric));
            }
        });
    }

    /** @return the metric's kind and reservoir, and its count or, for a gauge, its value: never a time measured */
    private static String describe(Metric metric) {
        String kind = metric.getClass().getSimpleName();
        if (metric instanceof Sampling sampling) {
            // the snapshot's class tells the reservoir, which hdr-metrics chooses
            kind += " of " + sampling.getSnapshot().getClass().getSimpleName();
        }
        if (metric instanceof Counting counting) {
            return kind + " count " + counting.getCount();
        }
        if (metric instanceof Gauge<?> gauge) {
            return "gauge " + gauge.getValue();
        }
        return kind;
    }

    /** The pool's start line names the extensions as listed, which is the one thing the orders differ in. */
    private static String listedSorted(String message) {
        int at = message.lastIndexOf(LISTED);
        return message.startsWith("Pool " + POOL + " started: ") && at >= 0 ? message.substring(0, at) + LISTED
            + String.join(", ", new TreeSet<>(List.of(message.substring(at + LISTED.length()).split(", ")))) : message;
    }

    private static String normal(String text) {
        return text.replaceAll("thread \"[^\"]*\"", "thread \"#\"").replaceAll(":\\d+/", ":#/")
            .replaceAll("\\d+(\\.\\d+)? ?(ms|s|milliseconds|seconds)\\b", "# $2");
    }

    private HttpResponse<String> get(DropwizardTestSupport<?> app, String path) {
        return getAsync(app, path).join();
    }

    private CompletableFuture<HttpResponse<String>> getAsync(DropwizardTestSupport<?> app, String path) {
        return http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.getLocalPort() + path))
            .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private String task(DropwizardTestSupport<?> app, String task) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.getAdminPort() + "/tasks/"
            + task)).POST(HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(30)).build();
        return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
    }
}
