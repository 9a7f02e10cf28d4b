package io.github.dropwizardhikari;

import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Timer;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.metrics.dropwizard.CodahaleMetricsTrackerFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * Starts and stops a pool, with its extensions, metrics and health checks. A start that fails leaves nothing open
 * and nothing registered, so the same name can be started again. HikariCP 7.1 aborts borrowed connections at once
 * when it closes, killing work in flight, so a stop first gives their borrowers up to the connection timeout.
 */
final class PoolLifecycle {
    // the data source's logger: the warning belongs to its stop
    private static final Logger LOGGER = LoggerFactory.getLogger(ManagedHikariDataSource.class);
    private static final long DRAIN_POLL_MILLIS = 10;
    private static final String HIKARI_POM_PROPERTIES = "/META-INF/maven/com.zaxxer/HikariCP/pom.properties";
    // the metrics HikariCP's tracker looks up by name (timer, histograms) rather than registers: registered first
    // here with a lock-free reservoir, since the default one takes a lock on every update
    private static final List<String> LOCK_FREE = List.of("Wait", "Usage", "ConnectionCreation");

    private final HikariConfig config;
    private final MetricRegistry metrics;
    private final List<PoolExtension> extensions;
    private final PoolHealthChecks healthChecks;
    private final HeldConnections held;
    private final List<String> registered = new ArrayList<>();

    // set before the pool is published, read after it
    private volatile List<PoolHooks> hooks = List.of();

    PoolLifecycle(HikariConfig config, MetricRegistry metrics, List<PoolExtension> extensions,
                  PoolHealthChecks healthChecks, HeldConnections.Settings holds) {
        this.config = config;
        this.metrics = metrics;
        this.extensions = List.copyOf(extensions);
        this.healthChecks = healthChecks;
        this.held = new HeldConnections(config.getPoolName(), config.getJdbcUrl(), holds);
    }

    static String metricName(String poolName, String metric) {
        return MetricRegistry.name(poolName, "pool", metric);
    }

    /** @param closed whether the data source has stopped, asked by its health checks */
    HikariDataSource start(BooleanSupplier closed) throws SQLException {
        refuseDuplicateMetrics();
        // each attempt starts from the settings alone: extensions change a copy
        HikariConfig attempt = new HikariConfig();
        config.copyStateTo(attempt);
        healthChecks.configure(attempt);
        DefaultCatalog.adopt(attempt);
        if (attempt.getMetricRegistry() != null) {
            // HikariCP takes a registry or a tracker factory, not both: the tracker records into the same registry
            attempt.setMetricRegistry(null);
        }
        attempt.setMetricsTrackerFactory(new CodahaleMetricsTrackerFactory(metrics));
        List<PoolHooks> attached = new ArrayList<>();
        HikariDataSource started;
        try {
            for (PoolExtension extension : extensions) {
                attached.add(extension.attach(attempt, metrics));
            }
            registerMetrics();
            started = open(attempt);
        } catch (RuntimeException | SQLException e) {
            close(null, attached, false);
            throw e;
        }
        held.started(started);
        try {
            attached.forEach(hook -> hook.started(started));
            healthChecks.register(started, attempt, metrics, attached, closed);
        } catch (RuntimeException e) {
            // an extension refused the started pool: leave nothing of it behind, at once
            close(started, attached, false);
            throw e;
        }
        hooks = List.copyOf(attached);
        LOGGER.info("Pool {} started: HikariCP {}, minSize {}, maxSize {}, maxWaitForConnection {} ms, {}, "
            + "extensions: {}", config.getPoolName(), hikariVersion(), attempt.getMinimumIdle(),
            attempt.getMaximumPoolSize(), attempt.getConnectionTimeout(), held.describe(),
            extensions.isEmpty() ? "none"
                : extensions.stream().map(PoolLifecycle::typeName).collect(Collectors.joining(", ")));
        return started;
    }

    /** @return the name a block gives the extension in YAML */
    private static String typeName(PoolExtension extension) {
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

    /** Borrows through every extension's hook, in the order listed, then from HikariCP. */
    Connection borrow(HikariDataSource running) throws SQLException {
        return borrow(running, hooks, 0);
    }

    private Connection borrow(HikariDataSource running, List<PoolHooks> hooks, int next) throws SQLException {
        return next == hooks.size() ? held.borrow(running)
            : hooks.get(next).borrow(() -> borrow(running, hooks, next + 1));
    }

    /** Counts a borrow refused by the stopping pool in {@code ConnectionTimeoutRate}, with every failed borrow. */
    void refused() {
        Meter failures = metrics.getMeters().get(metricName(config.getPoolName(), "ConnectionTimeoutRate"));
        if (failures != null) {
            failures.mark();
        }
    }

    /** Drains and closes the pool; harmless when none started. */
    void stop(@Nullable HikariDataSource running) {
        close(running, hooks, true);
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
        removeMetrics();
    }

    private HikariDataSource open(HikariConfig attempt) throws SQLException {
        try {
            return new HikariDataSource(attempt);
        } catch (RuntimeException e) {
            // HikariCP's initialization failure carries the connection failure as its cause
            Throwable cause = e.getCause() == null ? e : e.getCause();
            String sqlState = cause instanceof SQLException sql ? sql.getSQLState() : null;
            String reason = cause.getMessage() == null ? cause.getClass().getName() : cause.getMessage();
            throw new SQLException("pool " + config.getPoolName() + " could not start: " + reason, sqlState, e);
        }
    }

    // HikariCP 7.1 registers its metrics after it has opened the first connection, and would leave that connection
    // and its threads behind when a metric of the same name exists already.
    private void refuseDuplicateMetrics() {
        if (metrics.getNames().contains(metricName(config.getPoolName(), "TotalConnections"))) {
            throw new IllegalStateException("a pool named '" + config.getPoolName() + "' is already registered in "
                + "this MetricRegistry; give each pool its own name, or stop the other one first");
        }
    }

    private synchronized void registerMetrics() {
        for (String metric : LOCK_FREE) {
            String name = metricName(config.getPoolName(), metric);
            if (!metrics.getNames().contains(name)) {
                Reservoir reservoir = LockFreeExponentiallyDecayingReservoir.builder().build();
                metrics.register(name, metric.equals("Wait") ? new Timer(reservoir) : new Histogram(reservoir));
                registered.add(name);
            }
        }
    }

    private synchronized void removeMetrics() {
        registered.forEach(metrics::remove);
        registered.clear();
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
            LOGGER.warn("Pool {}: {} connection(s) still borrowed after {} ms; closing them", config.getPoolName(),
                abandoned, config.getConnectionTimeout());
        }
    }
}
