package io.github.dropwizardhikari.pool;

import io.github.dropwizardhikari.metrics.TomcatMetricNames;
import io.github.dropwizardhikari.scaleout.PoolSizing;

import static java.util.Objects.requireNonNull;

/**
 * What the bundle adds to a HikariCP pool, beside HikariCP's own configuration.
 *
 * @param sizing            logs the pool's size against the server's connection limit, in the background, each
 *                          time the pool starts
 * @param tomcatMetricNames whether to register, while the pool runs, the gauges Dropwizard's Tomcat pool registers
 *                          (see {@link TomcatMetricNames})
 * @param fairBorrowing     whether borrowers that find every connection out wait in arrival order
 * @param faults            how the pool meets database faults: outage recovery, eviction of dead connections,
 *                          failover
 */
public record PoolOptions(PoolSizing sizing, boolean tomcatMetricNames, boolean fairBorrowing, FaultHandling faults) {
    public PoolOptions {
        requireNonNull(sizing, "sizing");
        requireNonNull(faults, "faults");
    }

    /**
     * @return no size report, no Tomcat gauges, HikariCP's own hand-off, and the default fault handling
     */
    public static PoolOptions defaults() {
        return new PoolOptions(PoolSizing.direct(), false, false, FaultHandling.defaults());
    }

    public PoolOptions withFairBorrowing(boolean fair) {
        return new PoolOptions(sizing, tomcatMetricNames, fair, faults);
    }

    public PoolOptions withFaults(FaultHandling handling) {
        return new PoolOptions(sizing, tomcatMetricNames, fairBorrowing, handling);
    }
}
