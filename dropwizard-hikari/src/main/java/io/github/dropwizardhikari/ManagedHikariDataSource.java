package io.github.dropwizardhikari;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Timer;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.metrics.dropwizard.CodahaleMetricsTrackerFactory;
import io.dropwizard.db.ManagedDataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * A HikariCP pool under Dropwizard's lifecycle. It starts on the first {@link #getConnection()} or {@link #start()}, so
 * it serves clients that borrow before the server starts (Hibernate) and clients that never start it (migrations). A
 * start that fails leaves nothing open and nothing registered, so the same name can be started again. {@link #stop()}
 * drains and closes it, leaving nothing registered, and may be called any number of times: HikariCP 7.1 aborts borrowed
 * connections at once when it closes, so a stop first gives their borrowers up to the connection timeout.
 */
public final class ManagedHikariDataSource implements ManagedDataSource {
    static final Logger LOGGER = LoggerFactory.getLogger(ManagedHikariDataSource.class);
    // SQLState "connection does not exist", as drivers report for a closed connection (or a call on one)
    static final String CLOSED_SQL_STATE = "08003";
    // SQLState class 08: the client could not establish the connection
    private static final String CANNOT_CONNECT = "08001";
    private static final long DRAIN_POLL_MILLIS = 10;
    private static final String HIKARI_POM_PROPERTIES = "/META-INF/maven/com.zaxxer/HikariCP/pom.properties";
    // HikariCP's tracker looks these up by name: registered first with a lock-free reservoir (the default one locks)
    private static final List<String> LOCK_FREE = List.of("Wait", "Usage", "ConnectionCreation");

    private final HikariConfig config;
    private final MetricRegistry metrics;
    private final List<PoolExtension> extensions;
    private final PoolHealthChecks healthChecks;
    private final HeldConnections held;
    // two stops may remove them at once
    private final List<String> registered = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    private final @Nullable RuntimeException unusable;
    private volatile @Nullable HikariDataSource pool;
    private volatile boolean closed;
    // set before the pool is published, read after it; returnHooks: those overriding PoolHooks.returned
    private volatile List<PoolHooks> hooks = List.of();
    private volatile List<PoolHooks> returnHooks = List.of();

    /** @param unusable why the settings cannot make a pool, raised by every use; else {@code null} */
    ManagedHikariDataSource(HikariConfig config, MetricRegistry metrics, List<PoolExtension> extensions,
                            PoolHealthChecks checks, HeldConnections.Settings holds,
                            @Nullable RuntimeException unusable) {
        this.config = requireNonNull(config, "config");
        this.metrics = metrics;
        this.extensions = List.copyOf(extensions);
        this.healthChecks = checks;
        this.held = new HeldConnections(config.getPoolName(), config.getJdbcUrl(), holds);
        this.unusable = unusable;
    }

    /** As Dropwizard's own pool does for settings that cannot make a pool: every use raises the error. */
    static ManagedHikariDataSource unusable(String name, RuntimeException cause) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        return new ManagedHikariDataSource(config, new MetricRegistry(), List.of(), new PoolHealthChecks(name, null),
            HeldConnections.Settings.NONE, cause);
    }

    static String metricName(String poolName, String metric) {
        return MetricRegistry.name(poolName, "pool", metric);
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
        config.getDataSourceProperties().forEach((k, v) -> properties.put(String.valueOf(k), String.valueOf(v)));
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
        close(running, hooks, true);
    }

    /** Borrows through every extension's hook, in the order listed, then from HikariCP; then tells them all. */
    @Override
    public Connection getConnection() throws SQLException {
        HikariDataSource running = pool();
        List<PoolHooks> attached = hooks;
        Connection connection;
        try {
            connection = borrow(running, attached, 0);
        } catch (SQLException failure) {
            held.failed(failure, running);
            for (PoolHooks hook : attached) {
                failure = hook.borrowFailed(failure);
            }
            throw failure;
        }
        List<PoolHooks> listening = returnHooks;
        Connection lent = listening.isEmpty() ? connection : returning(connection, listening);
        try {
            attached.forEach(hook -> hook.borrowed(connection));
        } catch (RuntimeException e) {
            lent.close();
            throw e;
        }
        return lent;
    }

    /** @return {@code connection}, telling {@code listening} of its return at its first close() or abort() */
    private Connection returning(Connection connection, List<PoolHooks> listening) {
        AtomicBoolean returned = new AtomicBoolean();
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                String name = method.getName();
                try {
                    // equals is the proxy's own, so that it equals itself
                    return name.equals("equals") ? (Object) (proxy == args[0]) : method.invoke(connection, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                } finally {
                    if ((name.equals("close") || name.equals("abort")) && returned.compareAndSet(false, true)) {
                        // the borrower's call has done its work: an extension's failure is logged, not thrown at it
                        for (PoolHooks hook : listening) {
                            try {
                                hook.returned(connection);
                            } catch (RuntimeException e) {
                                LOGGER.warn("Pool {}: an extension failed on a return", getPoolName(), e);
                            }
                        }
                    }
                }
            });
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
                // counted in ConnectionTimeoutRate, with every failed borrow
                Optional.ofNullable(metrics.getMeters().get(metricName(getPoolName(), "ConnectionTimeoutRate")))
                    .ifPresent(Meter::mark);
                throw new SQLException("pool " + getPoolName() + " has been closed", CLOSED_SQL_STATE);
            }
            if (pool == null) {
                pool = open();
            }
            return pool;
        }
    }

    private HikariDataSource open() throws SQLException {
        // HikariCP 7.1 registers its metrics after it has opened the first connection, and would leave that
        // connection and its threads behind when a metric of the same name exists already
        if (metrics.getNames().contains(metricName(getPoolName(), "TotalConnections"))) {
            throw new IllegalStateException("a pool named '" + getPoolName() + "' is already registered in "
                + "this MetricRegistry; give each pool its own name, or stop the other one first");
        }
        // each attempt starts from the settings alone: extensions change a copy
        HikariConfig attempt = configurationCopy();
        healthChecks.configure(attempt);
        DefaultCatalog.adopt(attempt);
        // HikariCP takes a registry or a tracker factory, not both: the tracker records into the same registry
        attempt.setMetricRegistry(null);
        attempt.setMetricsTrackerFactory(new CodahaleMetricsTrackerFactory(metrics));
        List<PoolHooks> attached = new ArrayList<>();
        HikariDataSource started;
        try {
            for (PoolExtension extension : extensions) {
                attached.add(extension.attach(attempt, metrics));
            }
            registerMetrics();
            started = newHikariDataSource(attempt);
        } catch (RuntimeException | SQLException e) {
            close(null, attached, false);
            throw e;
        }
        held.started(started);
        try {
            attached.forEach(hook -> hook.started(started));
            healthChecks.register(started, attempt, metrics, attached, this::isClosed);
        } catch (RuntimeException e) {
            // an extension refused the started pool: leave nothing of it behind, at once
            close(started, attached, false);
            throw e;
        }
        returnHooks = attached.stream().filter(hook -> Arrays.stream(hook.getClass().getMethods()).anyMatch(method ->
            method.getName().equals("returned") && method.getDeclaringClass() != PoolHooks.class)).toList();
        hooks = List.copyOf(attached);
        LOGGER.info("Pool {} started: HikariCP {}, minSize {}, maxSize {}, maxWaitForConnection {} ms, {}, "
            + "extensions: {}", getPoolName(), hikariVersion(), attempt.getMinimumIdle(),
            attempt.getMaximumPoolSize(), attempt.getConnectionTimeout(), held.describe(),
            extensions.isEmpty() ? "none"
                : extensions.stream().map(ManagedHikariDataSource::typeName).collect(Collectors.joining(", ")));
        return started;
    }

    /** @return the name a block gives the extension in YAML */
    static String typeName(PoolExtension extension) {
        JsonTypeName name = extension.getClass().getAnnotation(JsonTypeName.class);
        return name == null ? extension.getClass().getName() : name.value();
    }

    /** @return the version of HikariCP on the class path, from its Maven metadata (its manifest has none) */
    static String hikariVersion() {
        try (InputStream in = HikariDataSource.class.getResourceAsStream(HIKARI_POM_PROPERTIES)) {
            Properties properties = new Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty("version", "(version unknown)");
        } catch (IOException e) {
            return "(version unknown)";
        }
    }

    private Connection borrow(HikariDataSource running, List<PoolHooks> hooks, int next) throws SQLException {
        return next == hooks.size() ? held.borrow(running)
            : hooks.get(next).borrow(() -> borrow(running, hooks, next + 1));
    }

    private void close(@Nullable HikariDataSource running, List<PoolHooks> attached, boolean drain) {
        healthChecks.unregister();
        attached.forEach(PoolHooks::stopping);
        if (running != null) {
            if (drain) {
                awaitBorrowedConnections(running.getHikariPoolMXBean());
            }
            held.stopped();
            // HikariCP aborts whatever is still borrowed, closes the rest and removes its metrics
            running.close();
            attached.forEach(PoolHooks::stopped);
        }
        registered.forEach(metrics::remove);
        registered.clear();
    }

    private HikariDataSource newHikariDataSource(HikariConfig attempt) throws SQLException {
        try {
            return new HikariDataSource(attempt);
        } catch (RuntimeException e) {
            // HikariCP's initialization failure carries the connection failure as its cause
            Throwable cause = e.getCause() == null ? e : e.getCause();
            String sqlState = cause instanceof SQLException sql ? sql.getSQLState() : null;
            String reason = cause.getMessage() == null ? cause.getClass().getName() : cause.getMessage();
            throw new SQLException("pool " + getPoolName() + " could not start: " + reason, sqlState, e);
        }
    }

    private void registerMetrics() {
        for (String metric : LOCK_FREE) {
            String name = metricName(getPoolName(), metric);
            if (!metrics.getNames().contains(name)) {
                Reservoir reservoir = LockFreeExponentiallyDecayingReservoir.builder().build();
                metrics.register(name, metric.equals("Wait") ? new Timer(reservoir) : new Histogram(reservoir));
                registered.add(name);
            }
        }
    }

    private void awaitBorrowedConnections(HikariPoolMXBean poolBean) {
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
}
