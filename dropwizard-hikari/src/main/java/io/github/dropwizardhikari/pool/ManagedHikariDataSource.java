package io.github.dropwizardhikari.pool;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.dropwizard.db.ManagedDataSource;
import io.github.dropwizardhikari.metrics.PoolMetricsTrackerFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * A HikariCP pool under Dropwizard's lifecycle.
 *
 * <p>Building it opens nothing. The pool starts on the first {@link #getConnection()} or on {@link #start()},
 * whichever comes first, so it serves clients that take connections before the server starts (Hibernate) and
 * clients that never start it (migrations). {@link #stop()} drains and closes the pool, removes its metrics and
 * health checks so a pool of the same name can be built again, and may be called any number of times, started
 * or not. A stopped pool does not restart. HikariCP's metrics are recorded through its tracker SPI
 * ({@link PoolMetricsTrackerFactory}); what the bundle adds besides is in {@link PoolExtras}.</p>
 */
public final class ManagedHikariDataSource implements ManagedDataSource {
    private static final Logger LOGGER = LoggerFactory.getLogger(ManagedHikariDataSource.class);
    // SQLState "connection does not exist", as drivers report for a closed connection
    private static final String CLOSED_SQL_STATE = "08003";
    private static final long DRAIN_POLL_MILLIS = 10;

    private final HikariConfig config;
    @Nullable
    private final MetricRegistry metrics;
    private final PoolHealthChecks healthChecks;
    private final boolean fairBorrowing;
    private final PoolExtras extras;
    private final Object lock = new Object();

    @Nullable
    private volatile HikariDataSource pool;
    private volatile boolean closed;

    /**
     * @param config       a validated configuration, owned by this data source from now on
     * @param healthChecks where HikariCP's health checks are registered when the pool starts; {@code null} for
     *                     none
     * @param options      what the bundle adds to HikariCP's pool
     */
    public ManagedHikariDataSource(HikariConfig config, @Nullable HealthCheckRegistry healthChecks,
                                   PoolOptions options) {
        this.config = requireNonNull(config, "config");
        // HikariCP takes either a registry or a tracker factory; the bundle's factory records into the registry
        Object registry = config.getMetricRegistry();
        this.metrics = registry instanceof MetricRegistry ? (MetricRegistry) registry : null;
        if (registry != null) {
            config.setMetricRegistry(null);
        }
        this.healthChecks = new PoolHealthChecks(config.getPoolName(), healthChecks);
        this.fairBorrowing = options.fairBorrowing();
        this.extras = new PoolExtras(config.getPoolName(), metrics, options, config.getExceptionOverride());
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

    /** @return whether borrowers wait in arrival order when every connection is out */
    public boolean isFairBorrowing() {
        return fairBorrowing;
    }

    @Override
    public void start() throws Exception {
        pool();
    }

    @Override
    public void stop() {
        HikariDataSource running;
        synchronized (lock) {
            closed = true;
            running = pool;
            pool = null;
        }
        healthChecks.unregister();
        extras.stopping();
        if (running != null) {
            awaitBorrowedConnections(running);
            // HikariCP aborts whatever is still borrowed, closes the rest and removes its metrics.
            running.close();
            extras.stopped();
        }
    }

    /**
     * HikariCP's own shutdown aborts borrowed connections at once, killing work in flight. New borrowers are
     * refused from here on; those already holding a connection get up to {@code maxWaitForConnection} to
     * finish and return it.
     */
    private void awaitBorrowedConnections(HikariDataSource running) {
        HikariPoolMXBean poolBean = running.getHikariPoolMXBean();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.getConnectionTimeout());
        try {
            while (poolBean.getActiveConnections() > 0 && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(DRAIN_POLL_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int abandoned = poolBean.getActiveConnections();
        if (abandoned > 0) {
            LOGGER.warn("Pool {}: {} connection(s) still borrowed after {} ms; closing them", getPoolName(),
                abandoned, config.getConnectionTimeout());
        }
    }

    @Override
    public Connection getConnection() throws SQLException {
        return extras.borrow(pool());
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

    /**
     * Unwraps to this class, to its fair borrow gate when fair borrowing is on, to {@link HikariDataSource} (for
     * {@code getHikariPoolMXBean()}, runtime resizing and {@code evictConnection}), or to whatever the driver's data
     * source unwraps to. All but the first start the pool.
     */
    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        HikariDataSource running = pool();
        Object gate = extras.unwrap(iface).orElse(null);
        return gate != null ? iface.cast(gate) : running.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return true;
        }
        HikariDataSource running = pool();
        return extras.unwrap(iface).isPresent() || running.isWrapperFor(iface);
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
        synchronized (lock) {
            if (closed) {
                throw new SQLException("pool " + getPoolName() + " has been closed", CLOSED_SQL_STATE);
            }
            if (pool == null) {
                pool = startPool();
            }
            return pool;
        }
    }

    private HikariDataSource startPool() throws SQLException {
        refuseDuplicateMetrics();
        healthChecks.configure(config);
        DefaultCatalog.adopt(config);
        HikariDataSource started;
        try {
            started = extras.open(config, queue -> {
                if (metrics != null) {
                    config.setMetricsTrackerFactory(new PoolMetricsTrackerFactory(metrics, queue));
                }
            });
        } catch (RuntimeException e) {
            // HikariCP's initialization failure carries the connection failure as its cause
            Throwable cause = e.getCause() == null ? e : e.getCause();
            String sqlState = cause instanceof SQLException ? ((SQLException) cause).getSQLState() : null;
            throw new SQLException("pool " + getPoolName() + " could not start: " + cause.getMessage(), sqlState, e);
        }
        healthChecks.register(config, metrics, this::isClosed,
            timeout -> check -> extras.connectivityCheck(check, started, timeout));
        try {
            extras.started(started, config, this::getConnection);
        } catch (IllegalStateException e) {
            // another pool of this name has the gauges: leave nothing of this one behind
            healthChecks.unregister();
            extras.stopping();
            started.close();
            extras.stopped();
            throw e;
        }
        return started;
    }

    // HikariCP registers its metrics after it has opened the first connection, and would leave that connection
    // and its threads behind when a metric of the same name exists already.
    private void refuseDuplicateMetrics() {
        MetricRegistry registry = metrics;
        String probe = MetricRegistry.name(getPoolName(), "pool", "Wait");
        if (registry != null && registry.getNames().contains(probe)) {
            throw new IllegalStateException("a pool named '" + getPoolName() + "' is already registered in this "
                + "MetricRegistry; give each pool its own name, or stop the other one first");
        }
    }
}
