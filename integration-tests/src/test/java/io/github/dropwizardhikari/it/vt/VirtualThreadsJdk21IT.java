package io.github.dropwizardhikari.it.vt;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.testing.DropwizardTestSupport;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Dropwizard with {@code server.enableVirtualThreads: true}: request concurrency is no longer capped by
 * {@code maxThreads}, so 500 requests wait at once on a pool of 4 PostgreSQL connections. Every request is
 * answered, none waits past {@code maxWaitForConnection}, the health checks stay healthy while the database
 * answers, the pool's figures show the queue, and JFR sees no virtual thread pinned to (or refused by) its carrier
 * in the bundle's code while it runs, with {@code fair-borrowing}, the extension made for this scenario; a busy pool
 * stays healthy with it and with the core alone (its own checks; Dropwizard's Jdbi check behaves as on Tomcat's
 * pool). When {@code /healthcheck} is not healthy the failure prints its page:
 * which check, and why.
 */
class VirtualThreadsJdk21IT {
    private static final Logger LOGGER = LoggerFactory.getLogger(VirtualThreadsJdk21IT.class);
    private static final int POOL = 4;
    private static final int REQUESTS = 500;
    private static final Duration MAX_WAIT = Duration.ofSeconds(20);
    // 40 requests holding a connection for a second each: a 10 s queue on 4 connections, within MAX_WAIT
    private static final int BUSY_REQUESTS = 40;
    private static final int BUSY_HOLD_MILLIS = 1_000;
    private static final String PINNED = "jdk.VirtualThreadPinned";
    private static final String SUBMIT_FAILED = "jdk.VirtualThreadSubmitFailed";
    private static final String BUNDLE = "io.github.dropwizardhikari.";
    private static final String TESTS = "io.github.dropwizardhikari.it.";

    /** What a test does with the running app. */
    private interface AppTest {
        void run(DropwizardTestSupport<VirtualThreadsApp.Config> app) throws Exception;
    }

    /** Starts the app with {@code extensions}, runs {@code test} on it, then stops it and removes its configuration. */
    private static void withApp(String extensions, AppTest test) throws Exception {
        Path config = Files.createTempFile("virtual-threads", ".yml");
        DropwizardTestSupport<VirtualThreadsApp.Config> app = null;
        try {
            app = start(config, extensions);
            test.run(app);
        } finally {
            try {
                if (app != null) {
                    app.after();
                }
            } finally {
                Files.deleteIfExists(config);
            }
        }
    }

    /**
     * The app with no extension (the core alone: HikariCP's own hand-off) and with fair borrowing, the extension this
     * scenario is for; each must answer every request and stay healthy while the queue is long.
     */
    private static DropwizardTestSupport<VirtualThreadsApp.Config> start(Path config, String extensions)
        throws Exception {
        TestDatabase database = TestDatabases.postgres();
        Files.writeString(config, "hikari:\n"
            + "  url: " + database.url() + "\n"
            + "  user: " + database.user() + "\n"
            + "  password: " + database.password() + "\n"
            + "  maxSize: " + POOL + "\n"
            + "  minSize: " + POOL + "\n"
            + "  maxWaitForConnection: " + MAX_WAIT.toSeconds() + " seconds\n"
            + (extensions.isEmpty() ? "" : "  extensions:\n    - type: " + extensions + "\n")
            + "server:\n"
            + "  enableVirtualThreads: true\n"
            + "  applicationConnectors:\n    - type: http\n      port: 0\n"
            + "  adminConnectors:\n    - type: http\n      port: 0\n  requestLog:\n    appenders: []\n"
            + "logging:\n  level: WARN\n");
        DropwizardTestSupport<VirtualThreadsApp.Config> app =
            new DropwizardTestSupport<>(VirtualThreadsApp.class, config.toString());
        app.before();
        return app;
    }

    /**
     * With fair borrowing only: on HikariCP's own hand-off, whichever waiting thread gets there first takes a returned
     * connection, and beside four CPU-bound processes on 2 cores some of the 500 waited past their 20 s (130 timed
     * out in one run, a 60 s HTTP timeout in the next), while the fair gate served every one within 9 s.
     */
    @Test
    void fiveHundredRequestsOnFourConnectionsAreAllAnsweredInOrderWithoutPinningACarrier() throws Exception {
        withApp("fair-borrowing", VirtualThreadsJdk21IT::answersAllWhileHealthy);
    }

    private static void answersAllWhileHealthy(DropwizardTestSupport<VirtualThreadsApp.Config> app) throws Exception {
        MetricRegistry metrics = app.getEnvironment().metrics();
        List<RecordedEvent> carrierEvents = new CopyOnWriteArrayList<>();
        AtomicInteger mostWaiting = new AtomicInteger();
        AtomicBoolean loading = new AtomicBoolean(true);
        List<Long> millis = new CopyOnWriteArrayList<>();
        List<Integer> statuses = new CopyOnWriteArrayList<>();

        try (RecordingStream jfr = new RecordingStream();
             HttpClient http = HttpClient.newBuilder().executor(Executors.newVirtualThreadPerTaskExecutor())
                 .connectTimeout(Duration.ofSeconds(10)).build();
             ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            jfr.enable(PINNED).withThreshold(Duration.ZERO).withStackTrace();
            jfr.enable(SUBMIT_FAILED).withStackTrace();
            jfr.onEvent(PINNED, carrierEvents::add);
            jfr.onEvent(SUBMIT_FAILED, carrierEvents::add);
            jfr.startAsync();

            Thread sampler = Thread.ofPlatform().daemon().start(() -> {
                while (loading.get()) {
                    mostWaiting.accumulateAndGet(waiting(metrics), Math::max);
                    sleepQuietly(5);
                }
            });
            URI query = URI.create("http://127.0.0.1:" + app.getLocalPort() + "/query");
            URI admin = URI.create("http://127.0.0.1:" + app.getAdminPort());
            List<Future<?>> requests = new ArrayList<>();
            for (int i = 0; i < REQUESTS; i++) {
                requests.add(clients.submit(() -> {
                    long started = System.nanoTime();
                    int status = http.send(HttpRequest.newBuilder(query).timeout(Duration.ofSeconds(60)).build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode();
                    millis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                    statuses.add(status);
                    return null;
                }));
            }
            // the health checks and the metrics servlet are read while the queue is long
            for (String path : List.of("/healthcheck", "/metrics", "/healthcheck")) {
                long asked = System.nanoTime();
                HttpResponse<String> page = http.send(HttpRequest.newBuilder(admin.resolve(path))
                    .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
                long answeredMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
                // the health page names the failing check and its message; the metrics page is long and says little
                assertThat(page.statusCode()).as("admin %s during the load (answered in %d ms, %d borrowers waiting)"
                        + ": %s", path, answeredMillis, waiting(metrics),
                        path.equals("/healthcheck") ? page.body() : "(metrics page)")
                    .isEqualTo(200);
            }
            for (Future<?> request : requests) {
                request.get(2, TimeUnit.MINUTES);
            }
            loading.set(false);
            sampler.join();
            jfr.stop(); // flushes: every event recorded so far has been handed to the callbacks
        }

        long slowest = millis.stream().mapToLong(Long::longValue).max().orElseThrow();
        Timer wait = metrics.timer("vt.pool.Wait");
        LOGGER.warn("Virtual threads: {} requests on a pool of {}: slowest {} ms, most borrowers waiting at once {}, "
                + "vt.pool.Wait max {} ms; carrier events during the load: {}", REQUESTS, POOL, slowest,
            mostWaiting.get(), TimeUnit.NANOSECONDS.toMillis(wait.getSnapshot().getMax()), describe(carrierEvents));

        assertThat(statuses).as("every request answered").hasSize(REQUESTS).containsOnly(200);
        assertThat(slowest).as("no request waited past maxWaitForConnection (%d ms): slowest %d ms",
            MAX_WAIT.toMillis(), slowest).isLessThan(MAX_WAIT.toMillis());
        assertThat(mostWaiting.get()).as("the pool's figures show the queue: more borrowers waiting than connections")
            .isGreaterThan(POOL);
        assertThat(carrierEvents.stream().filter(VirtualThreadsJdk21IT::inTheBundle).map(VirtualThreadsJdk21IT::text))
            .as("virtual threads pinned to or refused by a carrier inside the bundle's code").isEmpty();
    }

    /**
     * A pool that is busy but whose database answers is healthy: 40 requests that each hold a connection for a
     * second queue for 10 s on 4 connections, every one is served within {@code maxWaitForConnection} (20 s), and
     * {@code /healthcheck} read while the queue is long reads the pool's own checks healthy. A check that gives up on
     * a borrow sooner than the requests do calls the database down while every request is served: HikariCP's
     * connectivity check does not borrow while every connection is borrowed (healthy once one comes back).
     * Dropwizard's Jdbi check ({@code vt}) is bounded by {@code validationQueryTimeout}, as on Tomcat's pool.
     */
    @ParameterizedTest(name = "extensions: [{0}]")
    @ValueSource(strings = {"", "fair-borrowing"})
    void aBusyPoolWhoseDatabaseAnswersStaysHealthy(String extensions) throws Exception {
        withApp(extensions, app -> {
            MetricRegistry metrics = app.getEnvironment().metrics();
            try (HttpClient http = HttpClient.newBuilder().executor(Executors.newVirtualThreadPerTaskExecutor())
                     .connectTimeout(Duration.ofSeconds(10)).build();
                 ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
                URI hold = URI.create("http://127.0.0.1:" + app.getLocalPort() + "/query/hold?ms=" + BUSY_HOLD_MILLIS);
                List<Future<Integer>> requests = new ArrayList<>();
                for (int i = 0; i < BUSY_REQUESTS; i++) {
                    requests.add(clients.submit(() -> http.send(HttpRequest.newBuilder(hold)
                        .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.discarding())
                        .statusCode()));
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (waiting(metrics) < BUSY_REQUESTS / 2 && System.nanoTime() < deadline) {
                    sleepQuietly(20);
                }
                int queued = waiting(metrics);
                long asked = System.nanoTime();
                HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                    + app.getAdminPort() + "/healthcheck")).timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.ofString());
                long answeredMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
                List<Integer> statuses = new ArrayList<>();
                for (Future<Integer> request : requests) {
                    statuses.add(request.get(2, TimeUnit.MINUTES));
                }
                long slowestWait = TimeUnit.NANOSECONDS.toMillis(metrics.timer("vt.pool.Wait").getSnapshot().getMax());
                LOGGER.warn("Busy pool ({}): /healthcheck answered {} in {} ms with {} borrowers waiting; vt.pool.Wait "
                    + "max {} ms", extensions.isEmpty() ? "core alone" : extensions, health.statusCode(),
                    answeredMillis, queued, slowestWait);

                assertThat(queued).as("borrowers waiting when the page was read").isGreaterThan(BUSY_REQUESTS / 4);
                assertThat(statuses).as("every slow request served (vt.pool.Wait max %d ms)", slowestWait)
                    .hasSize(BUSY_REQUESTS).containsOnly(200);
                // the pool's own checks: Dropwizard's Jdbi check "vt" is bounded by validationQueryTimeout (5 s when
                // not set) as on Tomcat's pool, and may give up behind this 10 s queue
                JsonNode checks = Jackson.newObjectMapper().readTree(health.body());
                assertThat(checks.has("vt.pool.ConnectivityCheck")).as(health.body()).isTrue();
                checks.fields().forEachRemaining(check -> {
                    if (!check.getKey().equals("vt")) {
                        assertThat(check.getValue().get("healthy").asBoolean()).as("%s in /healthcheck with %d "
                            + "borrowers waiting, the database answering (answered in %d ms): %s", check.getKey(),
                            queued, answeredMillis, health.body()).isTrue();
                    }
                });
            }
        });
    }

    /**
     * Borrowers waiting now: HikariCP's {@code PendingConnections}, which with {@code fair-borrowing} counts those
     * queued at its gate too.
     */
    private static int waiting(MetricRegistry metrics) {
        Gauge<?> pending = metrics.getGauges().get("vt.pool.PendingConnections");
        return pending != null && pending.getValue() instanceof Number number ? number.intValue() : 0;
    }


    /**
     * Whether the bundle's own code is where the virtual thread blocked: the innermost frame outside the JDK is the
     * bundle's. A pin inside the driver (a blocking read in a class initializer, say) lists the bundle's frames
     * further out, because the bundle called HikariCP which called the driver; that pin is the driver's and is
     * counted in the log line, not here.
     */
    private static boolean inTheBundle(RecordedEvent event) {
        return event.getStackTrace() != null && event.getStackTrace().getFrames().stream()
            .map(frame -> frame.getMethod().getType().getName())
            .filter(type -> !isJdk(type))
            .findFirst()
            .filter(type -> type.startsWith(BUNDLE) && !type.startsWith(TESTS))
            .isPresent();
    }

    private static boolean isJdk(String type) {
        return type.startsWith("java.") || type.startsWith("javax.") || type.startsWith("jdk.")
            || type.startsWith("sun.") || type.startsWith("com.sun.");
    }

    /** What HikariCP, the driver and the rest contribute: events counted by the first frame of a known library. */
    private static Map<String, Integer> describe(List<RecordedEvent> events) {
        Map<String, Integer> counts = new TreeMap<>();
        for (RecordedEvent event : events) {
            String origin = "no stack";
            if (event.getStackTrace() != null) {
                origin = event.getStackTrace().getFrames().stream().map(frame -> frame.getMethod().getType().getName())
                    .filter(type -> type.startsWith("com.zaxxer.") || type.startsWith("org.postgresql.")
                        || type.startsWith("org.eclipse.jetty.") || (type.startsWith(BUNDLE) && !type.startsWith(TESTS)))
                    .findFirst().orElse("other");
            }
            counts.merge(event.getEventType().getName() + " in " + origin, 1, Integer::sum);
        }
        return counts;
    }

    private static String text(RecordedEvent event) {
        StringBuilder text = new StringBuilder(event.getEventType().getName());
        for (RecordedFrame frame : event.getStackTrace().getFrames()) {
            text.append("\n    at ").append(frame.getMethod().getType().getName()).append('.')
                .append(frame.getMethod().getName()).append(':').append(frame.getLineNumber());
        }
        return text.toString();
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
