package io.github.dropwizardhikari.pool;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.SQLExceptionOverride;
import io.dropwizard.db.ManagedDataSource;
import io.github.dropwizardhikari.borrow.FairBorrowGate;
import io.github.dropwizardhikari.eviction.ConnectionErrors;
import io.github.dropwizardhikari.eviction.ConnectionLossOverride;
import io.github.dropwizardhikari.eviction.EvictOn;
import io.github.dropwizardhikari.failover.FailoverEviction;
import io.github.dropwizardhikari.faults.OutageRecovery;
import io.github.dropwizardhikari.health.BusyPoolConnectivityCheck;
import io.github.dropwizardhikari.health.KnownOutageCheck;
import io.github.dropwizardhikari.health.WaitPercentileCheck;
import io.github.dropwizardhikari.metrics.PoolMetricsTrackerFactory;
import io.github.dropwizardhikari.metrics.QueueBeforeThePool;
import io.github.dropwizardhikari.metrics.TomcatMetricNames;
import io.github.dropwizardhikari.sizing.PoolSizing;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

import static java.util.Objects.requireNonNull;

/**
 * A HikariCP pool under Dropwizard's lifecycle.
 *
 * <p>Building it opens nothing. The pool starts on the first {@link #getConnection()} or on {@link #start()},
 * whichever comes first, so it serves clients that take connections before the server starts (Hibernate) and
 * clients that never start it (migrations). {@link #stop()} drains and closes the pool, removes its metrics and
 * health checks so a pool of the same name can be built again, and may be called any number of times, started
 * or not. A stopped pool does not restart.</p>
 *
 * <p>With fair borrowing on, {@link #getConnection()} goes through a {@link FairBorrowGate}, so borrowers that find
 * every connection out wait in arrival order. HikariCP's metrics are recorded through its tracker SPI
 * ({@link PoolMetricsTrackerFactory}): the gate's queue counts as waiting, and percentiles count every value of
 * their window.</p>
 */
public final class ManagedHikariDataSource implements ManagedDataSource {
    private static final Logger LOGGER = LoggerFactory.getLogger(ManagedHikariDataSource.class);
    // SQLState "connection does not exist", as drivers report for a closed connection
    private static final String CLOSED_SQL_STATE = "08003";
    private static final long DRAIN_POLL_MILLIS = 10;
    private static final long CHECK_SLACK_MILLIS = 500;
    private static final String CONNECTIVITY_CHECK = ".pool.ConnectivityCheck";
    // HikariCP's connectivity check waits this long; by default the validation timeout, never maxWaitForConnection
    private static final String CHECK_TIMEOUT_PROPERTY = "connectivityCheckTimeoutMs";

    private final HikariConfig config;
    @Nullable
    private final MetricRegistry metrics;
    @Nullable
    private final HealthCheckRegistry healthChecks;
    private final PoolSizing sizing;
    private final boolean tomcatMetricNames;
    private final boolean fairBorrowing;
    private final FaultHandling faults;
    @Nullable
    private final SQLExceptionOverride userOverride;
    private final List<String> registeredHealthChecks = new ArrayList<>();
    private final Object lock = new Object();

    @Nullable
    private volatile HikariDataSource pool;
    @Nullable
    private TomcatMetricNames tomcatGauges;
    // set before pool is published, read after it
    @Nullable
    private volatile FairBorrowGate gate;
    private volatile boolean closed;
    @Nullable
    private FailoverEviction failover;
    @Nullable
    private volatile OutageRecovery recovery;

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
        this.healthChecks = healthChecks;
        this.sizing = options.sizing();
        this.tomcatMetricNames = options.tomcatMetricNames();
        this.fairBorrowing = options.fairBorrowing();
        this.faults = options.faults();
        // the user's override (exceptionOverrideClassName) is asked first and wins; see ConnectionLossOverride
        this.userOverride = config.getExceptionOverride();
    }

    public String getPoolName() {
        return config.getPoolName();
    }

    /**
     * @return whether the pool has started and is not yet closed
     */
    public boolean isRunning() {
        return pool != null;
    }

    public boolean isClosed() {
        return closed;
    }

    /**
     * @return a copy of the configuration the pool was built from, for reports; changing it changes nothing
     */
    public HikariConfig configurationCopy() {
        HikariConfig copy = new HikariConfig();
        config.copyStateTo(copy);
        return copy;
    }

    /**
     * @return whether borrowers wait in arrival order when every connection is out
     */
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
        unregisterHealthChecks();
        removeTomcatGauges();
        stopFaultHandling();
        if (running != null) {
            awaitBorrowedConnections(running);
            // HikariCP aborts whatever is still borrowed, closes the rest and removes its metrics.
            running.close();
            FairBorrowGate runningGate = gate;
            if (runningGate != null) {
                runningGate.unregister();
            }
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
        HikariDataSource running = pool();
        OutageRecovery outages = recovery;
        return outages == null ? borrow(running) : outages.borrow(() -> borrow(running));
    }

    private Connection borrow(HikariDataSource running) throws SQLException {
        FairBorrowGate runningGate = gate;
        if (runningGate == null) {
            return running.getConnection();
        }
        return runningGate.borrow(running, running.getConnectionTimeout());
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
     * Unwraps to this class, to its {@link FairBorrowGate} when fair borrowing is on, to {@link HikariDataSource}
     * (for {@code getHikariPoolMXBean()}, runtime resizing and {@code evictConnection}), or to whatever the driver's
     * data source unwraps to. All but the first start the pool.
     */
    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        HikariDataSource running = pool();
        FairBorrowGate runningGate = gate;
        if (runningGate != null && iface.isInstance(runningGate)) {
            return iface.cast(runningGate);
        }
        return running.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return true;
        }
        HikariDataSource running = pool();
        return iface.isInstance(gate) || running.isWrapperFor(iface);
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
                HikariDataSource started = startPool();
                pool = started;
                // a borrow like any other, through the gate: the sizing opens no connection outside maxSize
                sizing.reportInBackground(config, this::getConnection);
            }
            return pool;
        }
    }

    private HikariDataSource startPool() throws SQLException {
        refuseDuplicateMetrics();
        // HikariCP's checks go to a private registry first; each is re-registered wrapped, so that it answers at
        // once for a closed pool and can be removed again on stop.
        HealthCheckRegistry hikariChecks = new HealthCheckRegistry();
        if (healthChecks != null) {
            config.setHealthCheckRegistry(hikariChecks);
        }
        DefaultCatalog.adopt(config);
        // a configuration built without a registry still gets a gate; its metrics then go nowhere visible
        MetricRegistry gateMetrics = metrics == null ? new MetricRegistry() : metrics;
        FairBorrowGate newGate = fairBorrowing
            ? new FairBorrowGate(getPoolName(), config.getMaximumPoolSize(), gateMetrics)
            : null;
        QueueBeforeThePool queue = newGate == null ? QueueBeforeThePool.NONE : newGate;
        if (metrics != null) {
            config.setMetricsTrackerFactory(new PoolMetricsTrackerFactory(metrics, queue));
        }
        // the gate follows every runtime resize, whichever way it comes (pool-resize, JMX)
        IntConsumer resized = newGate == null ? newSize -> { } : newGate::resize;
        OutageRecovery newRecovery = OutageRecovery.prepare(config, faults.recoveryProbeIntervalMillis());
        config.getHealthCheckProperties().putIfAbsent(CHECK_TIMEOUT_PROPERTY,
            Long.toString(Math.min(config.getValidationTimeout(), config.getConnectionTimeout())));
        FailoverEviction eviction = new FailoverEviction(getPoolName(), faults.failoverEviction(), config.isReadOnly(),
            FaultHandling.FAILOVER_WINDOW_MILLIS);
        ConnectionErrors errors = ConnectionErrors.of(config.getJdbcUrl(), config.getDriverClassName(),
            config.getDataSourceClassName());
        config.setExceptionOverride(new ConnectionLossOverride(userOverride, errors, new EvictOn(faults.evictOn()),
            eviction));
        HikariDataSource started;
        try {
            started = new GatedHikariDataSource(config, resized, queue);
        } catch (RuntimeException e) {
            // whatever HikariCP refuses to start with leaves nothing behind; its initialization failure carries the
            // connection failure as its cause
            if (newGate != null) {
                newGate.unregister();
            }
            newRecovery.close();
            Throwable cause = e.getCause() == null ? e : e.getCause();
            String sqlState = cause instanceof SQLException ? ((SQLException) cause).getSQLState() : null;
            throw new SQLException("pool " + getPoolName() + " could not start: " + cause.getMessage(), sqlState, e);
        }
        gate = newGate;
        startFaultHandling(started, eviction, newRecovery);
        registerHealthChecks(hikariChecks, started);
        try {
            registerTomcatGauges(started);
        } catch (IllegalStateException e) {
            // another pool of this name has the gauges: leave nothing of this one behind
            unregisterHealthChecks();
            stopFaultHandling();
            started.close();
            throw e;
        }
        return started;
    }

    private void startFaultHandling(HikariDataSource started, FailoverEviction eviction, OutageRecovery outages) {
        eviction.attach(started.getHikariPoolMXBean());
        failover = eviction;
        // the server behind the URL may have changed during an outage
        outages.started(started, started.getHikariPoolMXBean()::softEvictConnections);
        recovery = outages;
    }

    private void stopFaultHandling() {
        synchronized (lock) {
            OutageRecovery outages = recovery;
            if (outages != null) {
                outages.close();
                recovery = null;
            }
            if (failover != null) {
                failover.detach();
                failover = null;
            }
        }
    }

    private long connectivityCheckTimeoutMillis() {
        return Long.parseLong(config.getHealthCheckProperties().getProperty(CHECK_TIMEOUT_PROPERTY).trim());
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

    private void registerHealthChecks(HealthCheckRegistry hikariChecks, HikariDataSource started) {
        if (healthChecks == null) {
            return;
        }
        // HikariCP adds its 99th-percentile check only when it records into a registry itself; the bundle's
        // tracker records instead, so the bundle adds the check, reading the same timer
        long expected99 = Long.parseLong(config.getHealthCheckProperties()
            .getProperty(WaitPercentileCheck.PROPERTY, "0").trim());
        Timer wait = metrics == null ? null : metrics.getTimers().get(PoolMetricsTrackerFactory.waitName(getPoolName()));
        if (expected99 > 0 && wait != null) {
            hikariChecks.register(getPoolName() + WaitPercentileCheck.NAME, new WaitPercentileCheck(wait, expected99));
        }
        for (String name : hikariChecks.getNames()) {
            HealthCheck check = hikariChecks.getHealthCheck(name);
            OutageRecovery outages = recovery;
            if (name.equals(getPoolName() + CONNECTIVITY_CHECK) && outages != null) {
                long timeout = connectivityCheckTimeoutMillis();
                HealthCheck hikariCheck = check;
                check = outages.probe().<HealthCheck>map(probe ->
                    new BusyPoolConnectivityCheck(hikariCheck, started, probe, timeout)).orElse(check);
                check = new KnownOutageCheck(check, outages.outage(), getPoolName(), timeout + CHECK_SLACK_MILLIS);
            }
            healthChecks.register(name, new PoolHealthCheck(check, this::isClosed, getPoolName()));
            registeredHealthChecks.add(name);
        }
    }

    private void registerTomcatGauges(HikariDataSource started) {
        if (tomcatMetricNames && metrics != null) {
            tomcatGauges = TomcatMetricNames.register(metrics, getPoolName(), started.getHikariPoolMXBean());
        }
    }

    private void removeTomcatGauges() {
        synchronized (lock) {
            if (tomcatGauges != null) {
                tomcatGauges.remove();
                tomcatGauges = null;
            }
        }
    }

    private void unregisterHealthChecks() {
        if (healthChecks == null) {
            return;
        }
        synchronized (lock) {
            registeredHealthChecks.forEach(healthChecks::unregister);
            registeredHealthChecks.clear();
        }
    }
}
