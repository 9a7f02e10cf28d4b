package io.github.dropwizardhikari.faulthandling;

import com.codahale.metrics.health.HealthCheck;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dropwizardhikari.PoolHooks;
import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The fault handling of one running pool: HikariCP connects through a {@link RetryingDataSource} (for a pool
 * configured by URL), its exception override becomes a {@link ConnectionLossOverride} that asks the user's first,
 * borrowers pass {@link DatabaseOutage}, the connectivity check answers from it ({@link KnownOutageCheck}), and
 * HikariCP's metrics pass {@link PoolMetrics}; with {@code failoverEviction}, the override tells a
 * {@link FailoverEviction} what it sees. When the database accepts connections again after an outage, the
 * connections opened before it are evicted (those in use when they are returned).
 */
final class FaultHandlingHooks implements PoolHooks {
    // HikariCP's connectivity check has its own timeout; this much more lets it answer before the bound does
    private static final long CHECK_SLACK_MILLIS = 500;
    private static final String CONNECTIVITY_CHECK = ".pool.ConnectivityCheck";

    private final String poolName;
    private final long checkBoundMillis;
    private final PoolMetrics metrics;
    private final DatabaseOutage outage;
    @Nullable
    private final RetryingDataSource dataSource;
    @Nullable
    private final FailoverEviction failover;
    @Nullable
    private final DeadSessionCheck sessions;
    @Nullable
    private final ServerRole role;

    FaultHandlingHooks(HikariConfig config, List<String> evictOn, long recoveryProbeIntervalMillis,
                       @Nullable FailoverEviction failover, @Nullable DeadSessionCheck sessions,
                       @Nullable ServerRole role) {
        this.failover = failover;
        this.sessions = sessions;
        this.role = role;
        if (failover != null) {
            failover.tell(role);
        }
        this.poolName = config.getPoolName();
        this.checkBoundMillis = config.getConnectionTimeout() + CHECK_SLACK_MILLIS;
        this.metrics = new PoolMetrics(config.getMetricsTrackerFactory());
        config.setMetricsTrackerFactory(metrics);
        this.outage = new DatabaseOutage(poolName, recoveryProbeIntervalMillis, config.getConnectionTimeout(),
            metrics);
        config.setExceptionOverride(new ConnectionLossOverride(config.getExceptionOverride(), ConnectionErrors.of(
            config.getJdbcUrl(), config.getDriverClassName(), config.getDataSourceClassName()), evictOn, failover));
        // a pool HikariCP connects to through a data source of the user's, or by a URL no driver takes (HikariCP then
        // refuses it in its own words), is left to HikariCP's own timeouts
        this.dataSource = config.getJdbcUrl() == null || config.getDataSource() != null
            || config.getDataSourceClassName() != null ? null : UrlConnections.of(config)
            .map(connections -> new RetryingDataSource(connections, outage, metrics, recoveryProbeIntervalMillis))
            .orElse(null);
        if (dataSource != null) {
            metrics.recordCreationsHere();
            config.setDataSource(dataSource);
        }
    }

    @Override
    public Connection borrow(Borrow next) throws SQLException {
        Connection connection = outage.borrow(next);
        if (role != null) {
            try {
                connection = role.borrowed(connection);
            } catch (SQLException e) {
                metrics.borrowFailed();
                throw e;
            }
        }
        if (sessions != null) {
            sessions.borrowed(connection);
        }
        return connection;
    }

    @Override
    public void started(HikariDataSource pool) {
        // connections opened before an outage may point at a server that is no longer the primary
        outage.started(pool::getConnection, () -> pool.getHikariPoolMXBean().softEvictConnections());
        if (dataSource != null) {
            dataSource.retryWhile(() -> !pool.isClosed());
        }
        if (failover != null) {
            failover.attach(pool.getHikariPoolMXBean());
        }
        if (sessions != null) {
            sessions.start(pool);
        }
        if (role != null) {
            role.started(pool);
        }
    }

    @Override
    public HealthCheck healthCheck(String name, HealthCheck check) {
        return name.equals(poolName + CONNECTIVITY_CHECK)
            ? new KnownOutageCheck(new ServingCheck(check, role, sessions), outage, poolName, checkBoundMillis)
            : check;
    }

    /** Stops the fault handling before HikariCP closes, so that nothing reacts to its closing connections. */
    @Override
    public void stopping() {
        if (failover != null) {
            failover.detach();
        }
        if (sessions != null) {
            sessions.stop();
        }
        if (role != null) {
            role.stopping();
        }
        outage.close();
    }
}
