package io.github.dropwizardhikari.admission;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static io.github.dropwizardhikari.admission.AdmissionRequests.await;
import static io.github.dropwizardhikari.admission.AdmissionTestApp.OBSERVED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Admission, named in the pool's YAML, in a running Dropwizard server: limit 2 (the pool's maxSize), a minute's
 * wait, on /work/*.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class PoolAdmissionTest {
    private static final int LIMIT = AdmissionRequests.LIMIT;

    // waiting requests stay queued however slowly a loaded machine sends them; the 1 s wait of the pool is
    // AdmissionRejectionTest's
    static final DropwizardAppExtension<AdmissionTestApp.Config> APP = new DropwizardAppExtension<>(
        AdmissionTestApp.class, ResourceHelpers.resourceFilePath("admission-app.yml"),
        ConfigOverride.config("hikari.extensions[0].maxWait", "60 seconds"));

    private final AdmissionRequests requests = new AdmissionRequests(APP);

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
        requests.releaseEverything();
    }

    private CompletableFuture<HttpResponse<String>> get(String path) {
        return requests.get(path);
    }

    private void occupyAllSlots() throws InterruptedException {
        requests.occupyAllSlots();
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

        HttpResponse<String> health = requests.admin("/healthcheck");

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
