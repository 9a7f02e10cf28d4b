package io.github.dropwizardhikari.admission;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The {@code WARN} for admission's 503s, at most once per interval with a count, so a burst cannot flood the log. It
 * names a runtime resize of the pools, which admission's fixed limit does not follow.
 */
final class AdmissionLimitWarning {
    static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final Logger LOGGER = LoggerFactory.getLogger(PoolAdmissionHandler.class);

    private final MetricRegistry metrics;
    private final Supplier<List<String>> poolNames;
    private final LongSupplier clock;
    private final AtomicLong refusedSinceLastWarning = new AtomicLong();
    private final AtomicLong nextWarningAt;

    AdmissionLimitWarning(MetricRegistry metrics, Supplier<List<String>> poolNames, LongSupplier clock) {
        this.metrics = metrics;
        this.poolNames = poolNames;
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
            + "limit of {} concurrent requests (the admission extension's maxConcurrentRequests); {}{}", refused, limit,
            why, resizeNote(limit));
    }

    /** HikariCP's {@code MaxConnections} gauge follows a resize through its MXBean; the sum over the block's pools. */
    private String resizeNote(int limit) {
        List<String> names = poolNames.get();
        int size = 0;
        for (String pool : names) {
            Gauge<?> maxConnections = metrics.getGauges().get(MetricRegistry.name(pool, "pool", "MaxConnections"));
            if (maxConnections == null || !(maxConnections.getValue() instanceof Number connections)) {
                return "";
            }
            size += connections.intValue();
        }
        if (names.isEmpty() || size == limit) {
            return "";
        }
        String pools = names.size() == 1 ? "pool " + names.get(0) + " now has " : "pools "
            + String.join(", ", names) + " now have ";
        return "; " + pools + size + " connections, but Jetty's QoSHandler cannot change its limit while the server "
            + "runs: restart the application to apply it";
    }
}
