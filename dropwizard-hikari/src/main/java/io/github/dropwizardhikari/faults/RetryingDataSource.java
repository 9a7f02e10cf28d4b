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
 * The data source HikariCP connects through: while the database does not accept connections, a request for a
 * connection keeps trying once per interval instead of failing.
 *
 * <p>HikariCP opens connections on one thread and, after each failed attempt, sleeps twice as long as before, up to
 * 5 seconds, so after an outage the pool stays empty until that sleep ends. Here a failed attempt never reaches
 * HikariCP while the database is unreachable (SQLState class 08, PostgreSQL's 57P03 "starting up", or an I/O
 * failure): HikariCP's back-off never starts, the pool makes exactly one attempt per interval, and it gets its
 * connection the first time the database answers. Any other failure (a refused login, a missing driver) goes to
 * HikariCP at once, which fetches the credentials afresh for its next attempt.</p>
 *
 * <p>Until {@link #retryWhile} is called (while HikariCP's constructor makes its first connection) every attempt
 * is a single one, so {@code initializationFailTimeout} keeps HikariCP's meaning.</p>
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
        Connection connection;
        try {
            connection = connector.connect(user, password);
        } catch (SQLException e) {
            outage.failed(e);
            throw e;
        }
        outage.connected();
        return connection;
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

    /** HikariCP sets its connection timeout plus half a second here; drivers read it from the DriverManager. */
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
