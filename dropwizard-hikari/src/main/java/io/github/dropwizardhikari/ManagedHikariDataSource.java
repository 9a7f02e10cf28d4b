package io.github.dropwizardhikari;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.db.ManagedDataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * A HikariCP pool under Dropwizard's lifecycle. It starts on the first {@link #getConnection()} or {@link #start()},
 * so it serves clients that borrow before the server starts (Hibernate) and clients that never start it (migrations).
 * {@link #stop()} drains and closes it, leaving nothing registered, and may be called any number of times.
 */
public final class ManagedHikariDataSource implements ManagedDataSource {
    private static final Logger LOGGER = LoggerFactory.getLogger(ManagedHikariDataSource.class);
    // SQLState "connection does not exist", as drivers report for a closed connection
    private static final String CLOSED_SQL_STATE = "08003";
    // SQLState class 08: the client could not establish the connection
    private static final String CANNOT_CONNECT = "08001";

    private final HikariConfig config;
    private final PoolHealthChecks healthChecks;
    private final PoolLifecycle lifecycle;
    private final Object lock = new Object();
    @Nullable
    private final RuntimeException unusable;
    @Nullable
    private volatile HikariDataSource pool;
    private volatile boolean closed;

    /** @param unusable why the settings cannot make a pool, raised by every use; else {@code null} */
    ManagedHikariDataSource(HikariConfig config, MetricRegistry metrics, List<PoolExtension> extensions,
                            PoolHealthChecks checks, HeldConnections.Settings holds,
                            @Nullable RuntimeException unusable) {
        this.config = requireNonNull(config, "config");
        this.healthChecks = checks;
        this.lifecycle = new PoolLifecycle(config, metrics, extensions, checks, holds);
        this.unusable = unusable;
    }

    /** As Dropwizard's own pool does for settings that cannot make a pool: every use raises the error. */
    static ManagedHikariDataSource unusable(String name, RuntimeException cause) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        return new ManagedHikariDataSource(config, new MetricRegistry(), List.of(), new PoolHealthChecks(name, null),
            HeldConnections.Settings.NONE, cause);
    }

    public String getPoolName() {
        return config.getPoolName();
    }

    /** @return whether the pool has started and is not yet closed */
    public boolean isRunning() {
        return pool != null;
    }

    public boolean isClosed() {
        return closed;
    }

    /** @return a copy of the configuration the pool was built from, for reports; changing it changes nothing */
    public HikariConfig configurationCopy() {
        HikariConfig copy = new HikariConfig();
        config.copyStateTo(copy);
        return copy;
    }

    /** @return the JDBC URL with its secrets masked, as the factory's {@code toString()} prints it, for reports */
    public @Nullable String maskedUrl() {
        return Redaction.url(config.getJdbcUrl());
    }

    /** @return the driver properties with their secrets masked, as the factory's {@code toString()} prints them */
    public Map<String, String> maskedProperties() {
        Map<String, String> properties = new TreeMap<>();
        config.getDataSourceProperties().forEach((key, value) -> properties.put(String.valueOf(key),
            String.valueOf(value)));
        return Redaction.properties(properties);
    }

    void bindHealthChecks(HealthCheckRegistry registry) {
        healthChecks.bind(registry);
    }

    /** Starts the pool; with {@code initialSize: 0} one that cannot open yet tries again at its first borrow. */
    @Override
    public void start() throws Exception {
        try {
            pool();
        } catch (SQLException e) {
            if (config.getInitializationFailTimeout() >= 0) {
                throw e;
            }
            LOGGER.warn("Pool {} could not open ({}); it tries again at its first borrow", getPoolName(),
                e.getMessage());
        }
    }

    @Override
    public void stop() {
        HikariDataSource running;
        synchronized (lock) {
            // new borrowers are refused from here on, while the drain waits for those holding a connection
            closed = true;
            running = pool;
            pool = null;
        }
        lifecycle.stop(running);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return lifecycle.borrow(pool());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return pool().getConnection(username, password);
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return pool().getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        pool().setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        pool().setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return pool().getLoginTimeout();
    }

    @Override
    public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("HikariCP logs through SLF4J");
    }

    /** Unwraps to this class, to {@link HikariDataSource}, or to the driver's; all but the first start the pool. */
    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : pool().unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || pool().isWrapperFor(iface);
    }

    @Override
    public String toString() {
        String state = closed ? "closed" : pool == null ? "not started" : "running";
        return "ManagedHikariDataSource{pool=" + getPoolName() + ", " + state + "}";
    }

    private HikariDataSource pool() throws SQLException {
        HikariDataSource running = pool;
        if (running != null) {
            return running;
        }
        if (unusable != null) {
            throw new SQLException("Pool " + getPoolName() + " cannot start: " + unusable.getMessage(), CANNOT_CONNECT,
                unusable);
        }
        synchronized (lock) {
            if (closed) {
                lifecycle.refused();
                throw new SQLException("pool " + getPoolName() + " has been closed", CLOSED_SQL_STATE);
            }
            if (pool == null) {
                pool = lifecycle.start(this::isClosed);
            }
            return pool;
        }
    }
}
