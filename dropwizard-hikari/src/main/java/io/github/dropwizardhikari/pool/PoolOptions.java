package io.github.dropwizardhikari.pool;

import io.github.dropwizardhikari.metrics.TomcatMetricNames;
import io.github.dropwizardhikari.scaleout.PoolSizing;
import org.jspecify.annotations.Nullable;

/**
 * What the bundle adds to a HikariCP pool, beside HikariCP's own configuration.
 *
 * @param sizing            logs the pool's size against the server's connection limit, in the background, each
 *                          time the pool starts; {@code null}: no sizing log
 * @param tomcatMetricNames whether to register, while the pool runs, the gauges Dropwizard's Tomcat pool registers
 *                          (see {@link TomcatMetricNames})
 * @param fairBorrowing     whether borrowers that find every connection out wait in arrival order
 * @param faults            how the pool meets database faults: outage recovery, eviction of dead connections,
 *                          failover; {@code null}: HikariCP's own handling
 */
public record PoolOptions(@Nullable PoolSizing sizing, boolean tomcatMetricNames, boolean fairBorrowing,
                          @Nullable FaultHandling faults) {
}
