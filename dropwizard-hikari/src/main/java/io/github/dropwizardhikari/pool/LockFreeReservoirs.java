package io.github.dropwizardhikari.pool;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Timer;

import java.util.List;

/**
 * Puts HikariCP's per-borrow metrics on Metrics' lock-free reservoir.
 *
 * <p>HikariCP's Dropwizard tracker records every borrow in the {@code Wait} timer and every return in the
 * {@code Usage} histogram, each on {@code MetricRegistry}'s default reservoir, which takes a lock per update: under
 * contention the metrics, not the pool, become the bottleneck. The tracker asks the registry for its timer and
 * histograms by name and takes those it finds, so registering them first, of the same names and types, on a
 * {@link LockFreeExponentiallyDecayingReservoir} changes nothing but the reservoir. The tracker removes them
 * again when the pool closes.</p>
 */
final class LockFreeReservoirs {
    private LockFreeReservoirs() {
    }

    static void register(MetricRegistry metrics, String poolName) {
        metrics.register(MetricRegistry.name(poolName, "pool", "Wait"), new Timer(reservoir()));
        for (String histogram : histogramNames(poolName)) {
            metrics.register(histogram, new Histogram(reservoir()));
        }
    }

    /** For a pool that failed to start: HikariCP's tracker never took them over, so nothing else removes them. */
    static void remove(MetricRegistry metrics, String poolName) {
        metrics.remove(MetricRegistry.name(poolName, "pool", "Wait"));
        histogramNames(poolName).forEach(metrics::remove);
    }

    private static List<String> histogramNames(String poolName) {
        return List.of(MetricRegistry.name(poolName, "pool", "Usage"),
            MetricRegistry.name(poolName, "pool", "ConnectionCreation"));
    }

    private static Reservoir reservoir() {
        return LockFreeExponentiallyDecayingReservoir.builder().build();
    }
}
