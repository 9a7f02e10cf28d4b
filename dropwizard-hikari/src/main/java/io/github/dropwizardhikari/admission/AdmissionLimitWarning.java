package io.github.dropwizardhikari.admission;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.github.dropwizardhikari.metrics.PoolMetricsTrackerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The {@code WARN} for admission's 503s, at most once per interval with a count, so a burst cannot flood the log. It
 * names a runtime resize of the pool, which admission's fixed limit does not follow.
 */
final class AdmissionLimitWarning {
    static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final Logger LOGGER = LoggerFactory.getLogger(PoolAdmissionHandler.class);

    private final MetricRegistry metrics;
    private final String poolName;
    private final LongSupplier clock;
    private final AtomicLong refusedSinceLastWarning = new AtomicLong();
    private final AtomicLong nextWarningAt;

    AdmissionLimitWarning(MetricRegistry metrics, String poolName, LongSupplier clock) {
        this.metrics = metrics;
        this.poolName = poolName;
        this.clock = clock;
        this.nextWarningAt = new AtomicLong(clock.getAsLong());
    }

    void refused(int limit, String why) {
        long refused = refusedSinceLastWarning.incrementAndGet();
        long now = clock.getAsLong();
        long due = nextWarningAt.get();
        if (now - due < 0 || !nextWarningAt.compareAndSet(due, now + INTERVAL_NANOS)) {
            return;
        }
        refusedSinceLastWarning.addAndGet(-refused);
        LOGGER.warn("Admission answered 503 to {} request(s) since its last warning: the server is at its admission "
            + "limit of {} concurrent requests (hikari.admission.maxConcurrentRequests); {}{}", refused, limit, why,
            resizeNote(limit));
    }

    private String resizeNote(int limit) {
        Gauge<?> maxConnections = metrics.getGauges()
            .get(PoolMetricsTrackerFactory.name(poolName, PoolMetricsTrackerFactory.MAX_CONNECTIONS));
        if (maxConnections == null || !(maxConnections.getValue() instanceof Number size) || size.intValue() == limit) {
            return "";
        }
        return "; pool " + poolName + " now has " + size.intValue() + " connections, but Jetty's QoSHandler cannot "
            + "change its limit while the server runs: restart the application to apply it";
    }
}
