package io.github.dropwizardhikari.faults;

import org.jspecify.annotations.Nullable;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The data source HikariCP connects through, which keeps trying once per interval while the database is unreachable
 * (SQLState class 08, PostgreSQL's 57P03, an I/O failure). HikariCP 7.1 doubles its sleep after each failed attempt,
 * up to 5 seconds, so the pool could stay empty that long after an outage. Other failures (a refused login) reach
 * HikariCP at once, which fetches the credentials afresh.
 *
 * <p>Until {@link #retryWhile} (during HikariCP's constructor) each attempt is a single one, so
 * {@code initializationFailTimeout} keeps its meaning.</p>
 */
final class RetryingDataSource implements DataSource {
    private final DriverConnector connector;
    private final DatabaseOutage outage;
    private final long intervalNanos;
    @Nullable
    private volatile BooleanSupplier poolOpen;
    private volatile int loginTimeoutSeconds;

    RetryingDataSource(DriverConnector connector, DatabaseOutage outage, long intervalMillis) {
        this.connector = connector;
        this.outage = outage;
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
        return open != null && open.getAsBoolean();
    }

    private Connection attempt(@Nullable String user, @Nullable String password) throws SQLException {
        try {
            Connection connection = connector.connect(user, password);
            outage.connected();
            return connection;
        } catch (SQLException e) {
            outage.failed(e);
            throw e;
        }
    }

    private static void pauseUntil(long deadlineNanos, SQLException failure) throws SQLException {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            return;
        }
        try {
            TimeUnit.NANOSECONDS.sleep(left);
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
    public PrintWriter getLogWriter() {
        return DriverManager.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        DriverManager.setLogWriter(out);
    }

    /** HikariCP 7.1 sets its connection timeout plus 500 ms here; drivers read it from the DriverManager. */
    @Override
    public void setLoginTimeout(int seconds) {
        this.loginTimeoutSeconds = seconds;
        DriverManager.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() {
        return loginTimeoutSeconds;
    }

    @Override
    public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("the bundle logs through SLF4J");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException(getClass().getSimpleName() + " wraps no " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }
}
