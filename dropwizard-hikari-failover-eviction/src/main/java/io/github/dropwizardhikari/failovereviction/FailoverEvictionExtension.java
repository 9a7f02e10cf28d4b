package io.github.dropwizardhikari.failovereviction;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.PoolHooks;

/**
 * Evicts every connection of a pool at once on evidence that the server behind it changed, as in a failover
 * (Patroni, Aurora, a DNS switch): a write refused as read-only on a pool that is not {@code readOnlyByDefault}, or
 * connection loss on two connections within a second. One WARN per event; one session's death evicts only its own
 * connection. Connections in use are evicted when they are returned.
 *
 * <pre>{@code
 * hikari:
 *   url: jdbc:postgresql://db/app
 *   extensions:
 *     - type: fault-handling
 *     - type: failover-eviction
 * }</pre>
 *
 * <p>It has no settings. Listed after {@code fault-handling}, it asks that extension's override (and so the
 * user's) first.</p>
 */
@JsonTypeName("failover-eviction")
public class FailoverEvictionExtension implements PoolExtension {
    // connection loss on a second connection within this time of the first evicts the pool; errors within this time
    // after an eviction belong to the same event
    static final long WINDOW_MILLIS = 1_000;

    @Override
    public PoolHooks attach(HikariConfig config, MetricRegistry metrics) {
        FailoverEviction eviction = new FailoverEviction(config.getPoolName(), config.isReadOnly(), WINDOW_MILLIS);
        config.setExceptionOverride(new FailoverOverride(config.getExceptionOverride(), ConnectionErrors.of(
            config.getJdbcUrl(), config.getDriverClassName(), config.getDataSourceClassName()), eviction));
        return new PoolHooks() {
            @Override
            public void started(HikariDataSource pool) {
                eviction.attach(pool.getHikariPoolMXBean());
            }

            @Override
            public void stopping() {
                eviction.detach();
            }
        };
    }
}
