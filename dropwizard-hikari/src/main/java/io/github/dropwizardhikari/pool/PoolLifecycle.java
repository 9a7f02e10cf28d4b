package io.github.dropwizardhikari.pool;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.dropwizardhikari.metrics.PoolMetricsTrackerFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Starts and stops a pool, with its extras, metrics and health checks. A start that fails leaves nothing open and
 * nothing registered, so the same name can be started again. HikariCP 7.1 aborts borrowed connections at once when
 * it closes, killing work in flight, so a stop first gives their borrowers up to the connection timeout.
 */
final class PoolLifecycle {
    // the data source's logger: the warning belongs to its stop
    private static final Logger LOGGER = LoggerFactory.getLogger(ManagedHikariDataSource.class);
    private static final long DRAIN_POLL_MILLIS = 10;

    private final HikariConfig config;
    @Nullable
    private final MetricRegistry metrics;
    private final PoolHealthChecks healthChecks;
    private final PoolExtras extras;

    PoolLifecycle(HikariConfig config, @Nullable MetricRegistry metrics, PoolHealthChecks healthChecks,
                  PoolExtras extras) {
        this.config = config;
        this.metrics = metrics;
        this.healthChecks = healthChecks;
        this.extras = extras;
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
        healthChecks.register(config, metrics, closed, extras, started);
        try {
            extras.started(started, config, borrow);
        } catch (IllegalStateException e) {
            // another pool of this name has the gauges: leave nothing of this one behind, at once
            close(started, false);
            throw e;
        }
        return started;
    }

    /** Drains and closes the pool; harmless when none started. */
    void stop(@Nullable HikariDataSource running) {
        close(running, true);
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
            String sqlState = cause instanceof SQLException sql ? sql.getSQLState() : null;
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

    private void close(@Nullable HikariDataSource pool, boolean drain) {
        healthChecks.unregister();
        extras.stopping();
        if (pool != null) {
            if (drain) {
                awaitBorrowedConnections(pool.getHikariPoolMXBean());
            }
            // HikariCP aborts whatever is still borrowed, closes the rest and removes its metrics
            pool.close();
            extras.stopped();
        }
    }

    private void awaitBorrowedConnections(HikariPoolMXBean poolBean) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.getConnectionTimeout());
        try {
            while (poolBean.getActiveConnections() > 0 && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(DRAIN_POLL_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int abandoned = poolBean.getActiveConnections();
        if (abandoned > 0) {
            LOGGER.warn("Pool {}: {} connection(s) still borrowed after {} ms; closing them", config.getPoolName(),
                abandoned, config.getConnectionTimeout());
        }
    }
}
