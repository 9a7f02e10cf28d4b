package io.github.dropwizardhikari.hdrmetrics;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.PoolHooks;
import jakarta.validation.constraints.NotNull;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Exact percentiles for a pool's {@code Wait} timer and its {@code Usage} and {@code ConnectionCreation}
 * histograms: every value of a stated window counts (HdrHistogram, within 1%), where Metrics' default reservoir keeps
 * a decaying sample of 1,028 values that may miss the rare long wait an alert reads.
 *
 * <pre>{@code
 * hikari:
 *   url: jdbc:postgresql://db/app
 *   extensions:
 *     - type: hdr-metrics
 *       window: 1 minute
 * }</pre>
 *
 * <table>
 * <caption>Settings</caption>
 * <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 * <tr><td>{@code window}</td><td>1 minute</td><td>A snapshot counts every value of the current window and the one
 * before it: the last one to two windows. At least 1 second.</td></tr>
 * </table>
 *
 * <p>HikariCP's tracker looks its metrics up by name, so the metrics registered here, before the pool opens, are the
 * ones it updates; a name another pool already holds is left alone.</p>
 */
@JsonTypeName("hdr-metrics")
public class HdrMetricsExtension implements PoolExtension {
    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    private Duration window = Duration.minutes(1);

    @JsonProperty
    public Duration getWindow() {
        return window;
    }

    @JsonProperty
    public void setWindow(Duration window) {
        this.window = window;
    }

    @Override
    public PoolHooks attach(HikariConfig config, MetricRegistry metrics) {
        String pool = config.getPoolName();
        Map<String, Metric> ours = new LinkedHashMap<>();
        ours.put(MetricRegistry.name(pool, "pool", "Wait"), new Timer(reservoir()));
        ours.put(MetricRegistry.name(pool, "pool", "Usage"), new Histogram(reservoir()));
        ours.put(MetricRegistry.name(pool, "pool", "ConnectionCreation"), new Histogram(reservoir()));
        Map<String, Metric> registered = new LinkedHashMap<>();
        ours.forEach((name, metric) -> {
            if (!metrics.getMetrics().containsKey(name)) {
                try {
                    registered.put(name, metrics.register(name, metric));
                } catch (IllegalArgumentException registeredMeanwhile) {
                    // another pool of this name holds it; HikariCP refuses that pool's start
                }
            }
        });
        return new Hooks(metrics, registered);
    }

    private WindowedHdrReservoir reservoir() {
        return new WindowedHdrReservoir(window.getQuantity(), window.getUnit(), System::nanoTime);
    }

    /** Removes what it registered once the pool is closed, or when it never opened. */
    private static final class Hooks implements PoolHooks {
        private final MetricRegistry metrics;
        private final Map<String, Metric> registered;
        private volatile boolean opened;

        Hooks(MetricRegistry metrics, Map<String, Metric> registered) {
            this.metrics = metrics;
            this.registered = registered;
        }

        @Override
        public void started(HikariDataSource pool) {
            opened = true;
        }

        @Override
        public void stopping() {
            if (!opened) {
                remove();
            }
        }

        @Override
        public void stopped() {
            remove();
        }

        // HikariCP's tracker removes these names when the pool closes; only what is still ours goes here
        private void remove() {
            metrics.removeMatching((name, metric) -> registered.get(name) == metric);
        }
    }
}
