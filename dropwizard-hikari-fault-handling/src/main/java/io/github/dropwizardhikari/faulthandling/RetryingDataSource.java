package io.github.dropwizardhikari.faulthandling;

import org.jspecify.annotations.Nullable;

import javax.sql.DataSource;
import java.io.IOException;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLNonTransientConnectionException;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The data source HikariCP connects through, for a pool configured by URL: it connects as HikariCP would, with the
 * JDBC API alone, and keeps trying once per interval while the database is unreachable (SQLState class 08,
 * PostgreSQL's 57P03, an I/O failure). HikariCP 7.1 doubles its sleep after each failed attempt, up to 5 seconds, so
 * the pool could stay empty that long after an outage. Other failures (a refused login) reach HikariCP at once,
 * which fetches the credentials afresh. A missing driver fails an attempt, not the pool's build, without a SQLState,
 * so it is never retried as an unreachable database.
 *
 * <p>Until {@link #retryWhile} (during HikariCP's constructor), and always with an interval of 0, each attempt is a
 * single one, so {@code initializationFailTimeout} and HikariCP's back-off keep their meaning. Each answer is told to
 * the {@link DatabaseOutage} and to {@link PoolMetrics}, which records the connecting attempt's own time.</p>
 */
final class RetryingDataSource implements DataSource {
    private final String url;
    @Nullable
    private final String driverClassName;
    private final Properties properties = new Properties();
    private final DatabaseOutage outage;
    private final PoolMetrics metrics;
    private final long intervalNanos;
    @Nullable
    private volatile Driver driver;
    @Nullable
    private volatile BooleanSupplier poolOpen;
    private volatile int loginTimeoutSeconds;

    RetryingDataSource(String url, @Nullable String driverClassName, Properties properties, DatabaseOutage outage,
                       PoolMetrics metrics, long intervalMillis) {
        this.url = url;
        this.driverClassName = driverClassName;
        this.properties.putAll(properties);
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
        metrics.attempting();
        try {
            return connect(user, password);
        } catch (SQLException | RuntimeException e) {
            metrics.attemptFailed();
            throw e;
        }
    }

    private Connection connect(@Nullable String user, @Nullable String password) throws SQLException {
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

    private Connection attempt(@Nullable String user, @Nullable String password) throws SQLException {
        long started = System.nanoTime();
        try {
            Properties info = new Properties();
            info.putAll(properties);
            if (user != null) {
                info.setProperty("user", user);
            }
            if (password != null) {
                info.setProperty("password", password);
            }
            Connection connection = driver().connect(url, info);
            if (connection == null) {
                throw new SQLNonTransientConnectionException("the JDBC driver does not accept the url", (String) null);
            }
            metrics.attemptConnected(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            outage.connected();
            return connection;
        } catch (SQLException e) {
            outage.failed(e);
            throw e;
        }
    }

    private Driver driver() throws SQLException {
        Driver resolved = driver;
        if (resolved == null) {
            try {
                ClassLoader context = Thread.currentThread().getContextClassLoader();
                resolved = driverClassName == null ? DriverManager.getDriver(url) : (Driver) Class.forName(
                    driverClassName, true, context != null ? context : getClass().getClassLoader())
                    .getDeclaredConstructor().newInstance();
            } catch (SQLException | ReflectiveOperationException | LinkageError | ClassCastException e) {
                throw new SQLNonTransientConnectionException("cannot find the JDBC driver: " + e, null, e);
            }
            driver = resolved;
        }
        return resolved;
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
        throw new SQLFeatureNotSupportedException("HikariCP logs through SLF4J");
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
