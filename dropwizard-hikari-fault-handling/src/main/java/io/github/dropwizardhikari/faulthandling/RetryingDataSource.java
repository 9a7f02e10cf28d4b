package io.github.dropwizardhikari.faulthandling;

import org.jspecify.annotations.Nullable;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The data source HikariCP connects through, around HikariCP's own ({@link UrlConnections}): it keeps trying once
 * per interval while the database is unreachable (SQLState class 08, PostgreSQL's 57P03, an I/O failure). HikariCP 7.1 doubles its sleep after each failed attempt, up to 5 seconds, so the pool could stay empty
 * that long after an outage. Other failures (a refused login) reach HikariCP at once, which fetches the credentials
 * afresh.
 *
 * <p>Until {@link #retryWhile} (during HikariCP's constructor), and always with an interval of 0, each attempt is a
 * single one, so {@code initializationFailTimeout} and HikariCP's back-off keep their meaning. Each answer is told to
 * the {@link DatabaseOutage}; each connection made is recorded in {@code ConnectionCreation} here, with the time of
 * the attempt that made it, since HikariCP's own figure would span the attempts before it.</p>
 */
final class RetryingDataSource implements DataSource {
    private final UrlConnections hikari;
    private final DatabaseOutage outage;
    private final PoolMetrics metrics;
    private final long intervalNanos;
    @Nullable
    private volatile BooleanSupplier poolOpen;

    RetryingDataSource(UrlConnections hikari, DatabaseOutage outage, PoolMetrics metrics, long intervalMillis) {
        this.hikari = hikari;
        this.outage = outage;
        this.metrics = metrics;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
    }

    /** From now on, keeps trying while {@code open} says the pool is open. */
    void retryWhile(BooleanSupplier open) {
        this.poolOpen = open;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return getConnection(null, null);
    }

    @Override
    public Connection getConnection(@Nullable String user, @Nullable String password) throws SQLException {
        if (!retrying()) {
            return attempt(user, password);
        }
        outage.retrying(true);
        try {
            while (true) {
                long started = System.nanoTime();
                try {
                    return attempt(user, password);
                } catch (SQLException e) {
                    if (!unreachable(e) || !retrying()) {
                        throw e;
                    }
                    pauseUntil(started + intervalNanos, e);
                }
            }
        } finally {
            outage.retrying(false);
        }
    }

    private boolean retrying() {
        BooleanSupplier open = poolOpen;
        return intervalNanos > 0 && open != null && open.getAsBoolean();
    }

    /** @return what the wrapped data source answered: a null reaches HikariCP, which refuses it */
    private Connection attempt(@Nullable String user, @Nullable String password) throws SQLException {
        long started = System.nanoTime();
        Connection connection;
        try {
            DataSource connections = hikari.connections();
            connection = user == null ? connections.getConnection() : connections.getConnection(user, password);
        } catch (SQLException e) {
            outage.failed(e);
            throw e;
        }
        if (connection != null) {
            metrics.connectionCreated(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            outage.connected();
        }
        return connection;
    }

    private static void pauseUntil(long deadlineNanos, SQLException failure) throws SQLException {
        try {
            TimeUnit.NANOSECONDS.sleep(Math.max(0, deadlineNanos - System.nanoTime()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure;
        }
    }

    static boolean unreachable(SQLException e) {
        String state = e.getSQLState();
        if (state != null && (state.startsWith("08") || state.equals("57P03"))) {
            return true;
        }
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            if (cause instanceof IOException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return hikari.connections().getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        hikari.connections().setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        hikari.connections().setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return hikari.connections().getLoginTimeout();
    }

    @Override
    public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return hikari.connections().getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return hikari.connections().unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return hikari.connections().isWrapperFor(iface);
    }
}
