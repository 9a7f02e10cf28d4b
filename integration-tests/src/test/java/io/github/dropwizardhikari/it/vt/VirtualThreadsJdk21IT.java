package io.github.dropwizardhikari.it.vt;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import io.dropwizard.testing.DropwizardTestSupport;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;
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
 * answered, none waits past {@code maxWaitForConnection}, {@code /healthcheck} answers 200 while the database
 * answers, the pool's figures show the queue, and JFR sees no virtual thread pinned to (or refused by) its carrier
 * in the bundle's code while it runs, with {@code fair-borrowing}, the extension made for this scenario. When
 * {@code /healthcheck} is not 200 the failure prints its page: which check, and why.
 */
class VirtualThreadsJdk21IT {
    private static final Logger LOGGER = LoggerFactory.getLogger(VirtualThreadsJdk21IT.class);
    private static final int POOL = 4;
    private static final int REQUESTS = 500;
    private static final Duration MAX_WAIT = Duration.ofSeconds(20);
    private static final String PINNED = "jdk.VirtualThreadPinned";
    private static final String SUBMIT_FAILED = "jdk.VirtualThreadSubmitFailed";
    private static final String BUNDLE = "io.github.dropwizardhikari.";
    private static final String TESTS = "io.github.dropwizardhikari.it.";

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
        Path config = Files.createTempFile("virtual-threads", ".yml");
        DropwizardTestSupport<VirtualThreadsApp.Config> app = null;
        try {
            app = start(config, "fair-borrowing");
            answersAllWhileHealthy(app);
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

    /** Borrowers waiting now: HikariCP's own figure, plus those queued at the fair-borrowing gate. */
    private static int waiting(MetricRegistry metrics) {
        int waiting = 0;
        for (String name : List.of("vt.pool.PendingConnections", "vt.pool.GateWaiting")) {
            Gauge<?> gauge = metrics.getGauges().get(name);
            if (gauge != null && gauge.getValue() instanceof Number number) {
                waiting += number.intValue();
            }
        }
        return waiting;
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
