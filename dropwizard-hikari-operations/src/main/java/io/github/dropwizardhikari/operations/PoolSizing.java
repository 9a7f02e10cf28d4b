package io.github.dropwizardhikari.operations;

import com.zaxxer.hikari.HikariConfig;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;

/**
 * Logs, once per pool start, the pool's {@code maxSize} as a share of the connections the server accepts (INFO, or
 * WARN above half). It runs on a daemon thread so it never delays or fails the start, and borrows one of the pool's
 * connections for one bounded query so it opens none beyond {@code maxSize}; an error is an INFO line.
 */
record PoolSizing(PoolerMode pooler) {
    private static final Logger LOGGER = LoggerFactory.getLogger(PoolSizing.class);
    static final int QUERY_TIMEOUT_SECONDS = 2;

    /**
     * @param stopping whether the pool is stopping: a borrow that fails then says nothing about the server
     * @return the started thread, or {@code null} when there is nothing to size
     */
    @Nullable
    Thread reportInBackground(HikariConfig config, Callable<Connection> connect, BooleanSupplier stopping) {
        String pool = config.getPoolName();
        int maxSize = config.getMaximumPoolSize();
        // one connection cannot crowd a server; Dropwizard's migrations commands build such a pool and hold its
        // connection for the whole command, so a borrow would only wait and time out
        if (maxSize <= 1 || !ServerLimit.isKnown(config.getJdbcUrl(), config.getDataSourceClassName())) {
            LOGGER.debug("Pool {}: not sized against the server's connection limit", pool);
            return null;
        }
        Thread thread = new Thread(() -> report(pool, maxSize, connect, stopping), pool + " sizing");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private void report(String pool, int maxSize, Callable<Connection> connect, BooleanSupplier stopping) {
        try {
            PoolShare share = share(pool, maxSize, connect);
            if (share.warning()) {
                LOGGER.warn(share.message());
            } else {
                LOGGER.info(share.message());
            }
        } catch (Exception e) {
            if (!stopping.getAsBoolean()) {
                LOGGER.info("Pool {}: could not read the server's connection limit to size maxSize {} against it: {}",
                    pool, maxSize, e.getMessage());
                LOGGER.debug("Pool {}: connection limit query failed", pool, e);
            }
        }
    }

    private PoolShare share(String pool, int maxSize, Callable<Connection> connect) throws Exception {
        ServerLimit server;
        try (Connection connection = connect.call()) {
            server = ServerLimit.read(connection, QUERY_TIMEOUT_SECONDS);
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
