package io.github.dropwizardhikari.faults;

import com.codahale.metrics.health.HealthCheck;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;

import java.sql.SQLException;
import java.util.concurrent.TimeoutException;

/**
 * HikariCP's connectivity check, made to tell a busy pool from a dead database: HikariCP's check borrows a
 * connection, so a pool saturated by slow queries turns unhealthy and a load balancer may drop a merely busy
 * instance. On a saturated pool (none idle, at {@code maximumPoolSize}) this check instead opens a connection of its
 * own ({@link DatabaseProbe}) within the same timeout; otherwise it is HikariCP's check.
 */
public final class BusyPoolConnectivityCheck extends HealthCheck {
    private final HealthCheck hikariCheck;
    private final HikariDataSource pool;
    private final DatabaseProbe probe;
    private final long timeoutMillis;

    public BusyPoolConnectivityCheck(HealthCheck hikariCheck, HikariDataSource pool, DatabaseProbe probe,
                                     long timeoutMillis) {
        this.hikariCheck = hikariCheck;
        this.pool = pool;
        this.probe = probe;
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    protected Result check() {
        HikariPoolMXBean bean = pool.getHikariPoolMXBean();
        if (bean == null || !saturated(bean)) {
            return hikariCheck.execute();
        }
        int active = bean.getActiveConnections();
        int waiting = bean.getThreadsAwaitingConnection();
        try {
            long millis = probe.connect(timeoutMillis);
            return Result.healthy("pool %s is busy (%d connections in use, %d callers waiting); the database "
                + "accepted a direct connection in %d ms", pool.getPoolName(), active, waiting, millis);
        } catch (TimeoutException e) {
            return Result.unhealthy("pool %s is busy (%d in use) and the database did not accept a direct "
                + "connection within %d ms", pool.getPoolName(), active, timeoutMillis);
        } catch (SQLException e) {
            return Result.unhealthy("pool %s is busy (%d in use) and the database refused a direct connection "
                + "(SQLState %s)", pool.getPoolName(), active, e.getSQLState());
        }
    }

    private boolean saturated(HikariPoolMXBean bean) {
        return bean.getIdleConnections() == 0 && bean.getActiveConnections() > 0
            && bean.getTotalConnections() >= pool.getMaximumPoolSize();
    }
}
