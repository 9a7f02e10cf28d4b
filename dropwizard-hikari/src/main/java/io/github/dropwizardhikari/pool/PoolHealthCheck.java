package io.github.dropwizardhikari.pool;

import com.codahale.metrics.health.HealthCheck;

import java.util.function.BooleanSupplier;

/**
 * One of HikariCP's own health checks, answering unhealthy at once when its pool is closed.
 *
 * <p>HikariCP's connectivity check asks a closed pool for a connection and waits its whole timeout for an
 * answer; a closed pool cannot recover, so there is nothing to wait for.</p>
 */
final class PoolHealthCheck extends HealthCheck {
    private final HealthCheck hikariCheck;
    private final BooleanSupplier closed;
    private final String poolName;

    PoolHealthCheck(HealthCheck hikariCheck, BooleanSupplier closed, String poolName) {
        this.hikariCheck = hikariCheck;
        this.closed = closed;
        this.poolName = poolName;
    }

    @Override
    protected Result check() {
        if (closed.getAsBoolean()) {
            return Result.unhealthy("pool %s is closed", poolName);
        }
        return hikariCheck.execute();
    }
}
