package io.github.dropwizardhikari.faults;

import com.codahale.metrics.health.HealthCheck;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;

import java.sql.SQLException;
import java.util.concurrent.TimeoutException;

/**
 * HikariCP's connectivity check, made to tell a busy pool from a dead database.
 *
 * <p>HikariCP's check borrows a connection within its timeout. When slow queries hold every connection the
 * borrow times out and the check turns unhealthy although the database is fine, and a load balancer may then
 * take a merely busy instance out of service. So when the check starts with the pool saturated (every
 * connection in use, none idle, at {@code maximumPoolSize}) it does not queue for a connection: it opens one
 * connection of its own to the database ({@link DatabaseProbe}) within the same timeout, and answers healthy
 * if the database accepts it, unhealthy if not. In every other state it is HikariCP's check, unchanged.</p>
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
