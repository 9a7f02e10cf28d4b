package io.github.dropwizardhikari.pool;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dropwizardhikari.metrics.PoolMetricsTrackerFactory;
import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

/**
 * Starts a pool: opens HikariCP's pool with the bundle's extras and metrics tracker set into its configuration, then
 * registers its health checks and gauges. A start that fails leaves nothing open and nothing registered, so the
 * same name can be started again.
 */
final class PoolStartup {
    private final HikariConfig config;
    @Nullable
    private final MetricRegistry metrics;
    private final PoolHealthChecks healthChecks;
    private final PoolExtras extras;
    private final PoolShutdown shutdown;

    PoolStartup(HikariConfig config, @Nullable MetricRegistry metrics, PoolHealthChecks healthChecks,
                PoolExtras extras, PoolShutdown shutdown) {
        this.config = config;
        this.metrics = metrics;
        this.healthChecks = healthChecks;
        this.extras = extras;
        this.shutdown = shutdown;
    }

    /**
     * @param closed whether the data source has stopped, asked by its health checks
     * @param borrow a borrow through the data source, for the sizing log
     */
    HikariDataSource start(BooleanSupplier closed, Callable<Connection> borrow) throws SQLException {
        refuseDuplicateMetrics();
        healthChecks.configure(config);
        DefaultCatalog.adopt(config);
        HikariDataSource started = open();
        healthChecks.register(config, metrics, closed,
            timeout -> check -> extras.connectivityCheck(check, started, timeout));
        try {
            extras.started(started, config, borrow);
        } catch (IllegalStateException e) {
            // another pool of this name has the gauges: leave nothing of this one behind
            shutdown.undoStart(started);
            throw e;
        }
        return started;
    }

    private HikariDataSource open() throws SQLException {
        try {
            return extras.open(config, queue -> {
                if (metrics != null) {
                    config.setMetricsTrackerFactory(new PoolMetricsTrackerFactory(metrics, queue));
                }
            });
        } catch (RuntimeException e) {
            // HikariCP's initialization failure carries the connection failure as its cause
            Throwable cause = e.getCause() == null ? e : e.getCause();
            String sqlState = cause instanceof SQLException ? ((SQLException) cause).getSQLState() : null;
            String reason = cause.getMessage() == null ? cause.getClass().getName() : cause.getMessage();
            throw new SQLException("pool " + config.getPoolName() + " could not start: " + reason, sqlState, e);
        }
    }

    // HikariCP 7.1 registers its metrics after it has opened the first connection, and would leave that connection
    // and its threads behind when a metric of the same name exists already.
    private void refuseDuplicateMetrics() {
        if (metrics != null && metrics.getNames().contains(PoolMetricsTrackerFactory.waitName(config.getPoolName()))) {
            throw new IllegalStateException("a pool named '" + config.getPoolName() + "' is already registered in "
                + "this MetricRegistry; give each pool its own name, or stop the other one first");
        }
    }
}
