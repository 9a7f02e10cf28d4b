package io.github.dropwizardhikari.pool;

import com.codahale.metrics.health.HealthCheck;

import java.util.function.BooleanSupplier;

/**
 * One of HikariCP's own health checks, unhealthy at once when its pool is closed: HikariCP 7.1's connectivity check
 * would wait its whole timeout on a pool that cannot recover.
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
