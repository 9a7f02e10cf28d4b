package io.github.dropwizardhikari.admission;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;

import static io.github.dropwizardhikari.admission.AdmissionTestApp.OBSERVED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Admission, named in the pool's YAML, in a running Dropwizard server: limit 2 (the pool's maxSize), 1 second wait,
 * on /work/*.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class PoolAdmissionTest {
    private static final int LIMIT = 2;

    static final DropwizardAppExtension<AdmissionTestApp.Config> APP = new DropwizardAppExtension<>(
        AdmissionTestApp.class, ResourceHelpers.resourceFilePath("admission-app.yml"));

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();

    @BeforeAll
    static void warmUp() throws Exception {
        OBSERVED.reset();
    }

    @BeforeEach
    void reset() {
        OBSERVED.reset();
    }

    @AfterEach
    void releaseEverything() {
        OBSERVED.gate.release(10_000);
        inFlight.forEach(future -> future.orTimeout(30, TimeUnit.SECONDS).exceptionally(failure -> null).join());
        OBSERVED.gate.drainPermits();
    }

    private CompletableFuture<HttpResponse<String>> get(String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + APP.getLocalPort() + path))
            .timeout(Duration.ofSeconds(30)).build();
        CompletableFuture<HttpResponse<String>> response =
            client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        inFlight.add(response);
        return response;
    }

    private MetricRegistry metrics() {
        return APP.getEnvironment().metrics();
    }

    private long gauge(String name) {
        return ((Number) metrics().getGauges().get(name).getValue()).longValue();
    }

    private long waiting() {
        return gauge("hikari.admission.waiting");
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        // generous: 200 requests took over 20 s to reach the queue on a 2-core machine at load average 20; a
        // condition that holds returns at once, so only a failing run waits this long
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }

    private void occupyAllSlots() throws InterruptedException {
        for (int i = 0; i < LIMIT; i++) {
            get("/work/holder-" + i);
        }
        await("both slots are taken", () -> OBSERVED.inside.get() == LIMIT);
    }

    @Test
    void neverMoreThanTheLimitRunAtOnce() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> responses = IntStream.range(0, 20)
            .mapToObj(i -> get("/work/burst-" + i)).toList();
        await("two requests are inside", () -> OBSERVED.inside.get() == LIMIT);

        OBSERVED.gate.release(20);
        for (CompletableFuture<HttpResponse<String>> response : responses) {
            assertThat(response.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        assertThat(OBSERVED.entered).hasSize(20);
        assertThat(OBSERVED.maxInside.get()).isEqualTo(LIMIT);
    }

    @Test
    void waitingRequestsAreAdmittedInArrivalOrder() throws Exception {
        occupyAllSlots();
        for (int i = 0; i < 6; i++) {
            get("/work/queued-" + i);
            long expected = i + 1;
            await("request " + i + " waits", () -> waiting() == expected);
        }

        for (int i = 0; i < 6; i++) {
            int admittedSoFar = LIMIT + i;
            OBSERVED.gate.release();
            await("one more request entered", () -> OBSERVED.entered.size() == admittedSoFar + 1);
        }

        assertThat(OBSERVED.entered.subList(LIMIT, LIMIT + 6))
            .containsExactly("queued-0", "queued-1", "queued-2", "queued-3", "queued-4", "queued-5");
    }

    @Test
    void waitingRequestsHoldNoThread() throws Exception {
        QueuedThreadPool threads = (QueuedThreadPool) OBSERVED.server.getThreadPool();
        int idleBusy = threads.getBusyThreads();
        occupyAllSlots();

        for (int i = 0; i < 200; i++) {
            get("/work/many-" + i);
        }
        await("200 requests wait", () -> waiting() == 200);

        // Acceptors and selectors were busy before; the only new busy threads are the two admitted requests. The
        // thread that suspended the last arrival may not be back in the pool yet, so this waits for the steady
        // state: were waiting requests holding threads, about 200 would stay busy and this would time out.
        int bound = idleBusy + LIMIT + 1;
        await("busy threads settle at " + bound + " or fewer", () -> threads.getBusyThreads() <= bound);
        assertThat(waiting()).isEqualTo(200);
    }

    @Test
    void aRequestThatWaitsTooLongGets503WithRetryAfterOnTimeAndAWarning() throws Exception {
        occupyAllSlots();
        long rejectedBefore = metrics().meter("hikari.admission.rejected").getCount();
        Logger logger = (Logger) LoggerFactory.getLogger(PoolAdmissionHandler.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        logger.setAdditive(false);

        long started = System.nanoTime();
        HttpResponse<String> response;
        try {
            response = get("/work/late").get(10, TimeUnit.SECONDS);
        } finally {
            logger.detachAppender(appender);
            logger.setAdditive(true);
        }
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Retry-After")).contains("2");
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
            type -> assertThat(type).startsWith("application/json"));
        assertThat(response.body()).isEqualTo("{\"code\":503,\"message\":\"the server is at its admission limit of 2 "
            + "concurrent requests; this request waited 1000 ms for its turn (the admission extension's maxWait)\"}");
        assertThat(waitedMillis).isBetween(1_000L, 2_500L);
        assertThat(OBSERVED.entered).doesNotContain("late");
        assertThat(metrics().meter("hikari.admission.rejected").getCount()).isEqualTo(rejectedBefore + 1);
        // the only test here that is refused, so the rate limit has not been used up by another
        assertThat(appender.list).extracting(ILoggingEvent::getLevel, ILoggingEvent::getFormattedMessage)
            .containsExactly(tuple(Level.WARN, "Admission answered 503 to 1 request(s) since its last warning: the "
                + "server is at its admission limit of 2 concurrent requests (the admission extension's "
                + "maxConcurrentRequests); this request waited 1000 ms for its turn (the admission extension's maxWait)"));
    }

    @Test
    void pathsOutsideTheLimitAreNotHeld() throws Exception {
        occupyAllSlots();

        HttpResponse<String> response = get("/free").get(5, TimeUnit.SECONDS);

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("free");
        assertThat(waiting()).isZero();
    }

    /**
     * A full queue is not a sick database: the admin port is never limited, and the pool's health check and metrics
     * still say what the pool does.
     */
    @Test
    void theAdminPortAndThePoolsHealthStayTrueWhileRequestsWait() throws Exception {
        occupyAllSlots();
        get("/work/queued");
        await("one request waits", () -> waiting() == 1);
        try (var ignored = OBSERVED.pool.getConnection()) {
            assertThat(metrics().getTimers().get("hikari.pool.Wait").getCount()).isPositive();
        }

        HttpRequest healthcheck = HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + APP.getAdminPort() + "/healthcheck")).timeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> health = client.send(healthcheck, HttpResponse.BodyHandlers.ofString());

        assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
        assertThat(health.body()).contains("\"hikari.pool.ConnectivityCheck\":{\"healthy\":true");
        assertThat(APP.getEnvironment().healthChecks().runHealthCheck("hikari.pool.ConnectivityCheck").isHealthy())
            .isTrue();
        assertThat(gauge("hikari.pool.PendingConnections")).isZero();
        assertThat(waiting()).isEqualTo(1);
    }

    @Test
    void metricsCountAdmittedWaitingAndWaitTime() throws Exception {
        long admittedBefore = metrics().meter("hikari.admission.admitted").getCount();
        long waitsBefore = metrics().timer("hikari.admission.wait").getCount();
        occupyAllSlots();
        get("/work/metered");
        await("one request waits", () -> waiting() == 1);
        assertThat(metrics().counter("hikari.admission.inside").getCount()).isEqualTo(LIMIT);

        OBSERVED.gate.release();
        await("the waiting request is admitted", () -> OBSERVED.entered.contains("metered"));

        assertThat(waiting()).isZero();
        assertThat(metrics().meter("hikari.admission.admitted").getCount()).isEqualTo(admittedBefore + LIMIT + 1);
        assertThat(metrics().timer("hikari.admission.wait").getCount()).isEqualTo(waitsBefore + LIMIT + 1);
        assertThat(metrics().timer("hikari.admission.wait").getSnapshot().getMax())
            .isGreaterThan(TimeUnit.MILLISECONDS.toNanos(1));
    }
}
