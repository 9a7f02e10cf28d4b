package io.github.dropwizardhikari.admission;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static io.github.dropwizardhikari.admission.AdmissionTestApp.OBSERVED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Admission, named in the pool's YAML with no wait of its own, refuses a request that waited the pool's
 * {@code maxWaitForConnection} (1 second).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class AdmissionRejectionTest {
    static final DropwizardAppExtension<AdmissionTestApp.Config> APP = new DropwizardAppExtension<>(
        AdmissionTestApp.class, ResourceHelpers.resourceFilePath("admission-app.yml"));

    private final AdmissionRequests requests = new AdmissionRequests(APP);

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
        assertThat(waitedMillis).as("refused after %d ms (admission's maxWait: 1,000 ms)", waitedMillis)
            .isBetween(1_000L, 2_500L);
        assertThat(OBSERVED.entered).doesNotContain("late");
        assertThat(metrics().meter("hikari.admission.rejected").getCount()).isEqualTo(rejectedBefore + 1);
        // the only test here that is refused, so the rate limit has not been used up by another
        assertThat(appender.list).extracting(ILoggingEvent::getLevel, ILoggingEvent::getFormattedMessage)
            .containsExactly(tuple(Level.WARN, "Admission answered 503 to 1 request(s) since its last warning: the "
                + "server is at its admission limit of 2 concurrent requests (the admission extension's "
                + "maxConcurrentRequests); this request waited 1000 ms for its turn (the admission extension's maxWait)"));
    }
}
