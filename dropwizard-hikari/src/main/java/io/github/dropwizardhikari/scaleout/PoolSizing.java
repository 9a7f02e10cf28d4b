package io.github.dropwizardhikari.scaleout;

import com.zaxxer.hikari.HikariConfig;
import io.github.dropwizardhikari.pool.DatabaseKind;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Callable;

import static java.util.Objects.requireNonNull;

/**
 * Logs, once per pool start, the pool's {@code maxSize} as a share of the connections the server accepts (INFO, or
 * WARN above half). It runs on a daemon thread so it never delays or fails the start, and borrows one of the pool's
 * connections for one bounded query so it opens none beyond {@code maxSize}; an error is an INFO line.
 */
public final class PoolSizing {
    private static final Logger LOGGER = LoggerFactory.getLogger(PoolSizing.class);
    static final int QUERY_TIMEOUT_SECONDS = 2;

    private final PoolerMode pooler;

    public PoolSizing(PoolerMode pooler) {
        this.pooler = requireNonNull(pooler, "pooler");
    }

    /** @return the started thread, or {@code null} when the bundle cannot read this database's limit */
    @Nullable
    public Thread reportInBackground(HikariConfig config, Callable<Connection> connect) {
        if (!knowsLimitOf(config.getJdbcUrl(), config.getDataSourceClassName())) {
            LOGGER.debug("Pool {}: the bundle cannot read this database's connection limit", config.getPoolName());
            return null;
        }
        String pool = config.getPoolName();
        int maxSize = config.getMaximumPoolSize();
        Thread thread = new Thread(() -> report(pool, maxSize, connect), pool + " sizing");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    static boolean knowsLimitOf(@Nullable String url, @Nullable String dataSourceClassName) {
        DatabaseKind kind = DatabaseKind.of(url, null, dataSourceClassName);
        return kind == DatabaseKind.POSTGRESQL || kind == DatabaseKind.MARIADB;
    }

    private void report(String pool, int maxSize, Callable<Connection> connect) {
        try {
            PoolShare share = share(pool, maxSize, connect);
            if (share.warning()) {
                LOGGER.warn(share.message());
            } else {
                LOGGER.info(share.message());
            }
        } catch (Exception e) {
            LOGGER.info("Pool {}: could not read the server's connection limit to size maxSize {} against it: {}",
                pool, maxSize, e.getMessage());
            LOGGER.debug("Pool {}: connection limit query failed", pool, e);
        }
    }

    private PoolShare share(String pool, int maxSize, Callable<Connection> connect) throws Exception {
        ServerLimit server;
        try (Connection connection = connect.call()) {
            server = ServerLimitQuery.read(connection, QUERY_TIMEOUT_SECONDS);
        }
        if (pooler == PoolerMode.TRANSACTION) {
            return PoolShare.throughPooler(pool, maxSize, server);
        }
        if (server == null) {
            throw new SQLException("the server did not say which database it is");
        }
        return PoolShare.direct(pool, maxSize, server);
    }
}
