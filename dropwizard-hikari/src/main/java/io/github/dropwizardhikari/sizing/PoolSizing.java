package io.github.dropwizardhikari.sizing;

import io.github.dropwizardhikari.pooler.PoolerMode;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Logs, once per pool start, the pool's {@code maxSize} as a share of the connections the server (or the
 * transaction pooler in front of it) accepts: one INFO line, or a WARN when this pool alone would take more than
 * half.
 *
 * <p>It runs on a daemon thread of its own after the pool has started, so it never delays or fails the start: it
 * borrows one of the pool's connections (no extra server connection, which matters most when they are scarce),
 * bounds every query, and swallows every error into an INFO line that says why the limit is unknown.</p>
 */
public final class PoolSizing {
    private static final Logger LOGGER = LoggerFactory.getLogger(PoolSizing.class);
    static final int QUERY_TIMEOUT_SECONDS = 2;

    private final PoolerMode pooler;
    @Nullable
    private final String url;
    @Nullable
    private final String user;
    @Nullable
    private final String password;

    /**
     * @param pooler   what the user declared stands in front of the server
     * @param url      the pool's JDBC URL, to find a pooler's admin console; {@code null} for a data source class
     * @param user     the pool's user, for the admin console
     * @param password the pool's password, for the admin console; never logged
     */
    public PoolSizing(PoolerMode pooler, @Nullable String url, @Nullable String user, @Nullable String password) {
        this.pooler = pooler;
        this.url = url;
        this.user = user;
        this.password = password;
    }

    /** Sizing for a pool that reports the server's limit only. */
    public static PoolSizing direct() {
        return new PoolSizing(PoolerMode.NONE, null, null, null);
    }

    /** Starts the report on a daemon thread and returns at once. */
    public Thread reportInBackground(String pool, int maxSize, DataSource started) {
        Thread thread = new Thread(() -> report(pool, maxSize, started), pool + " sizing");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    void report(String pool, int maxSize, DataSource started) {
        try {
            PoolShare share = share(pool, maxSize, started);
            if (share == null) {
                return;
            }
            if (share.warning()) {
                LOGGER.warn(share.message());
            } else {
                LOGGER.info(share.message());
            }
        } catch (SQLException | RuntimeException e) {
            LOGGER.info("Pool {}: could not read the server's connection limit to size maxSize {} against it: {}",
                pool, maxSize, e.getMessage());
            LOGGER.debug("Pool {}: connection limit query failed", pool, e);
        }
    }

    @Nullable
    private PoolShare share(String pool, int maxSize, DataSource started) throws SQLException {
        ServerLimit server;
        try (Connection connection = started.getConnection()) {
            server = ServerLimitQuery.read(connection, QUERY_TIMEOUT_SECONDS);
        }
        if (pooler == PoolerMode.TRANSACTION) {
            if (url == null) {
                return PoolShare.throughUnknownPooler(pool, maxSize, "the pool has no JDBC URL to follow", server);
            }
            try {
                return PoolShare.throughPgBouncer(pool, maxSize,
                    PgBouncerConsole.read(url, user, password, QUERY_TIMEOUT_SECONDS), server);
            } catch (SQLException e) {
                return PoolShare.throughUnknownPooler(pool, maxSize, e.getMessage(), server);
            }
        }
        if (server == null) {
            LOGGER.info("Pool {}: maxSize {}; the connection limit of this database is not known to the bundle",
                pool, maxSize);
            return null;
        }
        return PoolShare.direct(pool, maxSize, server);
    }
}
