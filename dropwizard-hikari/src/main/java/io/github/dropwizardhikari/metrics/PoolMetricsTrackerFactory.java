package io.github.dropwizardhikari.metrics;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.zaxxer.hikari.metrics.IMetricsTracker;
import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import com.zaxxer.hikari.metrics.PoolStats;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * HikariCP's pool metrics under the names and types of HikariCP's Dropwizard tracker ({@code <pool>.pool.Wait},
 * {@code Usage}, {@code ConnectionCreation}, {@code ConnectionTimeoutRate}; gauges {@code TotalConnections},
 * {@code IdleConnections}, {@code ActiveConnections}, {@code PendingConnections}, {@code MaxConnections},
 * {@code MinConnections}), with two differences so alerts stay true: {@code PendingConnections} and {@code Wait}
 * include the fair borrow gate's queue, and timer and histograms count every value of their window
 * ({@link WindowedHdrReservoir}) instead of a decaying sample.
 */
public final class PoolMetricsTrackerFactory implements MetricsTrackerFactory {
    // the names other parts of the bundle read: this tracker registers them
    public static final String WAIT = "Wait";
    public static final String USAGE = "Usage";
    public static final String CONNECTION_CREATION = "ConnectionCreation";
    public static final String CONNECTION_TIMEOUT_RATE = "ConnectionTimeoutRate";
    public static final String MAX_CONNECTIONS = "MaxConnections";

    private final MetricRegistry registry;
    private final QueueBeforeThePool queue;

    /** @param queue borrowers waiting before HikariCP, counted as waiting */
    public PoolMetricsTrackerFactory(MetricRegistry registry, QueueBeforeThePool queue) {
        this.registry = requireNonNull(registry, "registry");
        this.queue = requireNonNull(queue, "queue");
    }

    /** @return the full name of one of the pool's metrics: {@code <pool>.pool.<metric>} */
    public static String name(String poolName, String metric) {
        return MetricRegistry.name(poolName, "pool", metric);
    }

    /** @return the name of the pool's {@code Wait} timer */
    public static String waitName(String poolName) {
        return name(poolName, WAIT);
    }

    @Override
    public IMetricsTracker create(String poolName, PoolStats stats) {
        return new Tracker(poolName, stats);
    }

    private final class Tracker implements IMetricsTracker {
        private final List<String> names = new ArrayList<>();
        private final Timer wait;
        private final Histogram usage;
        private final Histogram creation;
        private final Meter timeouts;

        Tracker(String poolName, PoolStats stats) {
            try {
                wait = register(name(poolName, WAIT), new Timer(new WindowedHdrReservoir()));
                usage = register(name(poolName, USAGE), new Histogram(new WindowedHdrReservoir()));
                creation = register(name(poolName, CONNECTION_CREATION), new Histogram(new WindowedHdrReservoir()));
                timeouts = register(name(poolName, CONNECTION_TIMEOUT_RATE), new Meter());
                register(name(poolName, "TotalConnections"), (Gauge<Integer>) stats::getTotalConnections);
                register(name(poolName, "IdleConnections"), (Gauge<Integer>) stats::getIdleConnections);
                register(name(poolName, "ActiveConnections"), (Gauge<Integer>) stats::getActiveConnections);
                register(name(poolName, "PendingConnections"),
                    (Gauge<Integer>) () -> stats.getPendingThreads() + queue.waiting());
                register(name(poolName, MAX_CONNECTIONS), (Gauge<Integer>) stats::getMaxConnections);
                register(name(poolName, "MinConnections"), (Gauge<Integer>) stats::getMinConnections);
            } catch (IllegalArgumentException e) {
                close();
                throw e;
            }
        }

        private <T extends Metric> T register(String name, T metric) {
            T registered = registry.register(name, metric);
            names.add(name);
            return registered;
        }

        @Override
        public void recordConnectionAcquiredNanos(long elapsedAcquiredNanos) {
            wait.update(elapsedAcquiredNanos + queue.takeQueuedNanos(), TimeUnit.NANOSECONDS);
        }

        @Override
        public void recordConnectionUsageMillis(long elapsedBorrowedMillis) {
            usage.update(elapsedBorrowedMillis);
        }

        @Override
        public void recordConnectionCreatedMillis(long connectionCreatedMillis) {
            creation.update(connectionCreatedMillis);
        }

        @Override
        public void recordConnectionTimeout() {
            timeouts.mark();
        }

        @Override
        public void close() {
            names.forEach(registry::remove);
            names.clear();
        }
    }
}
