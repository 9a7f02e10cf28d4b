package io.github.dropwizardhikari.pool;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;

/**
 * Stops a pool: its health checks and extras, then HikariCP's pool. HikariCP 7.1 aborts borrowed connections at once
 * when it closes, killing work in flight, so a stop first gives their borrowers up to the connection timeout.
 */
final class PoolShutdown {
    // the data source's logger: the warning belongs to its stop
    private static final Logger LOGGER = LoggerFactory.getLogger(ManagedHikariDataSource.class);
    private static final long DRAIN_POLL_MILLIS = 10;

    private final HikariConfig config;
    private final PoolHealthChecks healthChecks;
    private final PoolExtras extras;

    PoolShutdown(HikariConfig config, PoolHealthChecks healthChecks, PoolExtras extras) {
        this.config = config;
        this.healthChecks = healthChecks;
        this.extras = extras;
    }

    /** Drains and closes the pool; harmless when none started. */
    void stop(@Nullable HikariDataSource running) {
        close(running, true);
    }

    /** Closes, at once, a pool whose start failed after HikariCP opened it: it was never handed out. */
    void undoStart(HikariDataSource started) {
        close(started, false);
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
