package io.github.dropwizardhikari.admission;

import io.dropwizard.testing.junit5.DropwizardAppExtension;

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

import static io.github.dropwizardhikari.admission.AdmissionTestApp.OBSERVED;

/** Requests to an {@link AdmissionTestApp}, each remembered so that a test can release and await them all. */
final class AdmissionRequests {
    static final int LIMIT = 2;

    private final DropwizardAppExtension<AdmissionTestApp.Config> app;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();

    AdmissionRequests(DropwizardAppExtension<AdmissionTestApp.Config> app) {
        this.app = app;
    }

    CompletableFuture<HttpResponse<String>> get(String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.getLocalPort() + path))
            .timeout(Duration.ofSeconds(30)).build();
        CompletableFuture<HttpResponse<String>> response =
            client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        inFlight.add(response);
        return response;
    }

    HttpResponse<String> admin(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.getAdminPort() + path))
            .timeout(Duration.ofSeconds(5)).build();
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    void releaseEverything() {
        OBSERVED.gate.release(10_000);
        inFlight.forEach(future -> future.orTimeout(30, TimeUnit.SECONDS).exceptionally(failure -> null).join());
        OBSERVED.gate.drainPermits();
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
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

    void occupyAllSlots() throws InterruptedException {
        for (int i = 0; i < LIMIT; i++) {
            get("/work/holder-" + i);
        }
        await("both slots are taken", () -> OBSERVED.inside.get() == LIMIT);
    }
}
