package io.github.dropwizardhikari;

import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.util.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * Bounds what a borrowed connection holds. Each borrow gets the block's {@code networkTimeout} (JDBC's
 * {@code setNetworkTimeout}; HikariCP 7.1 restores the connection's own on return), so a call waiting on a silent
 * database fails. With {@code removeAbandoned}, a connection held past {@code removeAbandonedTimeout} is aborted, which
 * ends a holder stuck in the driver, and one still not closed a second later is evicted, which frees its place.
 * It also says once why borrows fail, and when they succeed again.
 */
final class HeldConnections {
    /** {@code networkTimeout} 0: none; {@code abandonAfter} 0: {@code removeAbandoned} off. */
    record Settings(Duration networkTimeout, Duration abandonAfter, boolean logAbandoned) {
        static final Settings NONE = new Settings(Duration.seconds(0), Duration.seconds(0), false);
    }

    private static final Logger LOGGER = LoggerFactory.getLogger(ManagedHikariDataSource.class);
    private static final Executor IN_PLACE = Runnable::run;
    private static final long EVICT_AFTER_ABORT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private record Borrowed(long sinceNanos, @Nullable Exception stack, AtomicLong abortedNanos) {
    }

    private final String poolName;
    private final Settings settings;
    private final int networkTimeoutMillis;
    // off once the driver has shown it has no network timeout
    private volatile boolean bounding;
    private volatile boolean driverChecked;
    private final AtomicLong failingSince = new AtomicLong();
    private final @Nullable Map<Connection, Borrowed> borrowed;
    private @Nullable ScheduledExecutorService sweeper;

    HeldConnections(String poolName, Settings settings) {
        this.poolName = poolName;
        this.settings = settings;
        this.networkTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, settings.networkTimeout().toMilliseconds());
        this.bounding = networkTimeoutMillis > 0;
        this.borrowed = settings.abandonAfter().toNanoseconds() > 0 ? new ConcurrentHashMap<>() : null;
    }

    /** @return what the start's log line says of this pool's bounds */
    String describe() {
        String bound = bounding ? "a database call silent for " + settings.networkTimeout() + " fails (networkTimeout)"
            : "no network timeout (networkTimeout: 0)";
        return bound + (borrowed == null ? "" : "; a connection held past " + settings.abandonAfter()
            + " is aborted and its place freed (removeAbandoned)");
    }

    synchronized void started(HikariDataSource pool) {
        if (borrowed != null) {
            long period = Math.max(100, Math.min(1_000, settings.abandonAfter().toMilliseconds() / 4));
            sweeper = Executors.newSingleThreadScheduledExecutor(task -> {
                Thread thread = new Thread(task, poolName + ":abandoned");
                thread.setDaemon(true);
                return thread;
            });
            sweeper.scheduleWithFixedDelay(() -> sweep(pool), period, period, TimeUnit.MILLISECONDS);
        }
    }

    synchronized void stopped() {
        if (sweeper != null) {
            sweeper.shutdownNow();
            sweeper = null;
        }
        if (borrowed != null) {
            borrowed.clear();
        }
    }

    /** @return {@code connection}, HikariCP's, bounded and tracked */
    Connection borrowed(Connection connection) throws SQLException {
        if (bounding && connection.getNetworkTimeout() != networkTimeoutMillis) {
            bound(connection);
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

    /** Logs the first failed borrow of an outage, with its cause: the line that says why the service was down. */
    void failed(SQLException e) {
        if (failingSince.compareAndSet(0, System.nanoTime())) {
            Throwable cause = e.getCause();
            LOGGER.warn("Pool {}: borrows fail from now on: {}{}", poolName, e.getMessage(),
                cause == null || cause == e ? "" : " (caused by " + cause + ")");
        }
    }

    private void bound(Connection connection) throws SQLException {
        try {
            connection.setNetworkTimeout(IN_PLACE, networkTimeoutMillis);
        } catch (SQLFeatureNotSupportedException | AbstractMethodError | UnsupportedOperationException e) {
            unbounded(connection, e.toString());
            return;
        }
        if (!driverChecked) {
            driverChecked = true;
            // a driver that accepts the call and ignores it (H2) reports its own timeout unchanged
            Connection driver = connection.unwrap(Connection.class);
            if (driver.getNetworkTimeout() != networkTimeoutMillis) {
                unbounded(connection, driver.getClass().getName() + " ignores setNetworkTimeout");
            }
        }
    }

    private void unbounded(Connection connection, String why) throws SQLException {
        bounding = false;
        String url = connection.getMetaData().getURL();
        // an embedded database has no network to go silent
        if (url == null || !url.startsWith("jdbc:h2:") || url.startsWith("jdbc:h2:tcp:")
            || url.startsWith("jdbc:h2:ssl:")) {
            LOGGER.warn("Pool {}: networkTimeout cannot bound a call to a silent database with this driver ({}): "
                + "such a call waits until TCP gives up; set the driver's own socket timeout in properties", poolName,
                why);
        }
    }

    private void sweep(HikariDataSource pool) {
        long now = System.nanoTime();
        borrowed.forEach((connection, held) -> {
            try {
                if (connection.isClosed()) {
                    borrowed.remove(connection);
                } else if (held.abortedNanos().get() == 0
                    && now - held.sinceNanos() >= settings.abandonAfter().toNanoseconds()) {
                    held.abortedNanos().set(now);
                    LOGGER.warn("Pool {}: aborting a connection held for more than {} (removeAbandoned)", poolName,
                        settings.abandonAfter(), held.stack());
                    connection.abort(IN_PLACE);
                } else if (held.abortedNanos().get() != 0 && now - held.abortedNanos().get() > EVICT_AFTER_ABORT_NANOS) {
                    // its borrower has not closed it: HikariCP closes it and frees its place
                    borrowed.remove(connection);
                    pool.evictConnection(connection);
                }
            } catch (SQLException | RuntimeException e) {
                LOGGER.warn("Pool {}: could not abort an abandoned connection: {}", poolName, e.toString());
            }
        });
    }
}
