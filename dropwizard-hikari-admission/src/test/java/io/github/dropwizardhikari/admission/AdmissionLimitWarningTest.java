package io.github.dropwizardhikari.admission;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The rate-limited warning of admission's 503s, on a clock the test moves. */
class AdmissionLimitWarningTest {
    private static final String WHY = "this request waited 1000 ms for its turn (the admission extension's maxWait)";

    private final MetricRegistry metrics = new MetricRegistry();
    private final AtomicLong now = new AtomicLong(1_000_000L);
    private final AdmissionLimitWarning warning = new AdmissionLimitWarning(metrics, () -> List.of("db"), now::get);
    private final Logger logger = (Logger) LoggerFactory.getLogger(PoolAdmissionHandler.class);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    @BeforeEach
    void capture() {
        appender.start();
        logger.addAppender(appender);
        // the warnings are the subject here, not news for the build's console
        logger.setAdditive(false);
    }

    @AfterEach
    void release() {
        logger.detachAppender(appender);
        logger.setAdditive(true);
    }

    private String message(int refused, String tail) {
        return "Admission answered 503 to " + refused + " request(s) since its last warning: the server is at its "
            + "admission limit of 4 concurrent requests (the admission extension's maxConcurrentRequests); " + WHY + tail;
    }

    @Test
    void warnsAtOnceThenAtMostOncePerIntervalCountingWhatItSkipped() {
        warning.refused(4, WHY);
        warning.refused(4, WHY);
        warning.refused(4, WHY);
        now.addAndGet(AdmissionLimitWarning.INTERVAL_NANOS - 1);
        warning.refused(4, WHY);
        now.addAndGet(1);
        warning.refused(4, WHY);

        assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage)
            .containsExactly(message(1, ""), message(4, ""));
    }

    @Test
    void saysWhenThePoolWasResizedPastTheLimit() {
        AtomicInteger poolSize = new AtomicInteger(4);
        metrics.register("db.pool.MaxConnections", (Gauge<Integer>) poolSize::get);

        warning.refused(4, WHY);
        poolSize.set(6);
        now.addAndGet(AdmissionLimitWarning.INTERVAL_NANOS);
        warning.refused(4, WHY);

        assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage).containsExactly(message(1, ""),
            message(1, "; pool db now has 6 connections, but Jetty's QoSHandler cannot change its limit while the "
                + "server runs: restart the application to apply it"));
    }
}
