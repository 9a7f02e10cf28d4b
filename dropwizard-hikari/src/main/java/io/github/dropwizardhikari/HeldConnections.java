package io.github.dropwizardhikari;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.dropwizard.util.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounds what a borrowed connection holds: {@code networkTimeout} on each borrow; with {@code removeAbandoned}, an
 * abort past {@code removeAbandonedTimeout}, then an eviction a second later if still open. Logs the first failed
 * borrow of an outage and the first success after.
 */
final class HeldConnections {
    /** 0 turns {@code networkTimeout} or {@code abandonAfter} ({@code removeAbandoned}) off. */
    record Settings(Duration networkTimeout, Duration abandonAfter, boolean logAbandoned) {
        static final Settings NONE = new Settings(Duration.seconds(0), Duration.seconds(0), false);
    }

    private record Borrowed(long sinceNanos, @Nullable Exception stack, AtomicLong abortedNanos) { }

    private static final Logger LOGGER = ManagedHikariDataSource.LOGGER;
    private static final Executor IN_PLACE = Runnable::run;
    private static final String CLOSED_STATE = ManagedHikariDataSource.CLOSED_SQL_STATE;

    private final String poolName;
    private final @Nullable String url;
    private final Settings settings;
    private final int timeoutMillis;
    // off once the driver has shown it has no network timeout
    private volatile boolean bounding;
    private volatile boolean driverChecked;
    private final AtomicLong failingSince = new AtomicLong();
    private final @Nullable Map<Connection, Borrowed> borrowed;
    private @Nullable ScheduledExecutorService sweeper;

    HeldConnections(String poolName, @Nullable String url, Settings settings) {
        this.poolName = poolName;
        this.url = url;
        this.settings = settings;
        this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, settings.networkTimeout().toMilliseconds());
        this.bounding = timeoutMillis > 0;
        this.borrowed = settings.abandonAfter().toNanoseconds() > 0 ? new ConcurrentHashMap<>() : null;
    }

    String describe() {
        return "networkTimeout " + (bounding ? timeoutMillis + " ms (a call silent that long fails)"
            : "0 (none: nothing in the core bounds a call to a silent database)")
            + (borrowed == null ? "" : ", removeAbandonedTimeout " + settings.abandonAfter().toMilliseconds()
            + " ms (a connection held that long is aborted)");
    }

    synchronized void started(HikariDataSource pool) {
        if (borrowed != null) {
            long period = Math.max(100, Math.min(1_000, settings.abandonAfter().toMilliseconds() / 4));
            sweeper = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread thread = new Thread(task, poolName + ":abandoned");
                thread.setDaemon(true);
                return thread;
            });
            sweeper.scheduleWithFixedDelay(() -> sweep(pool, borrowed), period, period, TimeUnit.MILLISECONDS);
        }
    }

    synchronized void stopped() {
        if (sweeper != null) {
            sweeper.shutdownNow();
            sweeper = null;
        }
    }

    Connection borrow(HikariDataSource pool) throws SQLException {
        Connection connection = pool.getConnection();
        if (bounding) {
            try {
                bound(connection.unwrap(Connection.class));
            } catch (SQLException | RuntimeException e) {
                connection.close();
                throw e;
            }
        }
        if (borrowed != null) {
            borrowed.put(connection, new Borrowed(System.nanoTime(),
                settings.logAbandoned() ? new Exception("borrowed here") : null, new AtomicLong()));
        }
        long since = failingSince.get();
        if (since != 0 && failingSince.compareAndSet(since, 0)) {
            LOGGER.info("Pool {}: serving again, {} ms after its first failed borrow", poolName,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since));
        }
        return connection;
    }

    /** A borrow failed, in HikariCP or at an extension's hook: the first of an outage logs why the service is down. */
    void failed(SQLException e, HikariDataSource pool) {
        if (failingSince.compareAndSet(0, System.nanoTime())) {
            LOGGER.warn("Pool {}: borrows fail from now on: {}{}", poolName, e.getMessage(), because(e, pool));
        }
    }

    // HikariCP's timeout carries its last failed connection attempt as its cause: none when every connection is in
    // use, and it may be a follow-up error (a call on a connection already closed, SQLState 08003) that hides what
    // closed it. Such an error is never given as the cause.
    private static String because(Exception e, HikariDataSource pool) {
        HikariPoolMXBean state = pool.getHikariPoolMXBean();
        if (state != null && state.getActiveConnections() >= pool.getMaximumPoolSize()) {
            return " (all " + state.getActiveConnections() + " connections in use: their borrowers' calls have not "
                + "returned, or they were not closed)";
        }
        Throwable cause = e.getCause();
        while (cause instanceof SQLException sql && CLOSED_STATE.equals(sql.getSQLState())) {
            cause = cause.getCause();
            if (cause == null) {
                return " (the last connection attempt failed on a connection already closed, SQLState 08003, "
                    + "which does not say what closed it)";
            }
        }
        return cause == null ? "" : " (caused by " + cause + ")";
    }

    // Set on the driver's connection, not through HikariCP's proxy: the proxy would reset it on return, and HikariCP
    // 7.1 throws a NullPointerException resetting it on a connection it evicted while lent. Every borrower of the
    // pool gets the same value, and HikariCP's own validation restores the one it captured, so it is set again here.
    private void bound(Connection driver) throws SQLException {
        String ignored;
        try {
            if (driver.getNetworkTimeout() == timeoutMillis) {
                return;
            }
            driver.setNetworkTimeout(IN_PLACE, timeoutMillis);
            if (driverChecked) {
                return;
            }
            driverChecked = true;
            // a driver that accepts the call and ignores it (H2) still reports its own timeout
            if (driver.getNetworkTimeout() == timeoutMillis) {
                return;
            }
            ignored = driver.getClass().getName() + " ignores setNetworkTimeout";
        } catch (SQLFeatureNotSupportedException | AbstractMethodError | UnsupportedOperationException e) {
            // the exception alone may not say whose it is
            ignored = driver.getClass().getName() + " refuses setNetworkTimeout: " + e;
        }
        bounding = false;
        // an embedded H2 database has no network to go silent
        if (url == null || !url.startsWith("jdbc:h2:") || url.matches("jdbc:h2:(tcp|ssl):.*")) {
            LOGGER.warn("Pool {}: networkTimeout cannot bound a call to a silent database with this driver ({}): "
                + "such a call waits until TCP gives up; set the driver's own socket timeout in properties", poolName,
                ignored);
        }
    }

    private void sweep(HikariDataSource pool, Map<Connection, Borrowed> tracked) {
        long now = System.nanoTime();
        tracked.forEach((connection, held) -> {
            try {
                long aborted = held.abortedNanos().get();
                if (connection.isClosed()) {
                    tracked.remove(connection);
                } else if (aborted == 0 && now - held.sinceNanos() >= settings.abandonAfter().toNanoseconds()) {
                    held.abortedNanos().set(now);
                    LOGGER.warn("Pool {}: aborting a connection held for more than {} (removeAbandoned): its "
                        + "borrower's calls fail from now on; its place is freed when it is closed, or a second later "
                        + "if it is not", poolName, settings.abandonAfter(), held.stack());
                    connection.abort(IN_PLACE);
                } else if (aborted != 0 && now - aborted > TimeUnit.SECONDS.toNanos(1)) {
                    // closed by HikariCP, which frees its place (a borrower woken by the abort has closed it by now)
                    tracked.remove(connection);
                    pool.evictConnection(connection);
                }
            } catch (SQLException | RuntimeException e) {
                LOGGER.warn("Pool {}: could not abort an abandoned connection: {}", poolName, e.toString());
            }
        });
    }
}
