package io.github.dropwizardhikari;

import com.codahale.metrics.Counting;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheck.Result;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.fasterxml.jackson.databind.util.ClassUtil;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * One pool's health checks, registered again from HikariCP's own registry into the application's (which may come
 * after the pool started), so that they are removed on stop and answer at once for a closed pool: HikariCP 7.1's
 * connectivity check would wait its whole timeout. While every connection is borrowed, the connectivity check does
 * not borrow (it would wait behind the requests): it is healthy as soon as a connection comes back.
 */
final class PoolHealthChecks {
    private static final Logger LOGGER = LoggerFactory.getLogger(PoolHealthChecks.class);
    // how long HikariCP's connectivity check waits: the validation timeout here, the connection timeout in HikariCP
    private static final String CHECK_TIMEOUT_PROPERTY = "connectivityCheckTimeoutMs";
    // HikariCP's Connection99Percent check: its property and its name after the pool's
    static final String PERCENTILE_PROPERTY = "expected99thPercentileMs";
    static final String PERCENTILE_CHECK = ".pool.Connection99Percent";
    private static final String CONNECTIVITY_CHECK = ".pool.ConnectivityCheck";
    private static final long RETURN_POLL_MILLIS = 10;

    private final String poolName;
    private final HealthCheckRegistry hikariChecks = new HealthCheckRegistry();
    private @Nullable HealthCheckRegistry application;
    // the checks of the running pool, by name; empty while it does not run
    private Map<String, HealthCheck> running = Map.of();

    PoolHealthChecks(String poolName, @Nullable HealthCheckRegistry application) {
        this.poolName = poolName;
        this.application = application;
    }

    void configure(HikariConfig config) {
        config.setHealthCheckRegistry(hikariChecks);
        config.getHealthCheckProperties().putIfAbsent(CHECK_TIMEOUT_PROPERTY,
            Long.toString(Math.min(config.getValidationTimeout(), config.getConnectionTimeout())));
    }

    /** Registers the checks of the started pool, with those of its extensions, each passed through every hook. */
    synchronized void register(HikariDataSource pool, HikariConfig config, MetricRegistry metrics,
                               List<PoolHooks> hooks, BooleanSupplier closed) {
        Map<String, HealthCheck> checks = new LinkedHashMap<>();
        hikariChecks.getNames().forEach(name -> checks.put(name, hikariChecks.getHealthCheck(name)));
        // HikariCP's tracker updates this histogram on every return
        Counting usage = metrics.getHistograms().get(ManagedHikariDataSource.metricName(poolName, "Usage"));
        HealthCheck connectivity = checks.get(poolName + CONNECTIVITY_CHECK);
        if (connectivity != null && usage != null) {
            long timeoutMillis = Long.parseLong(config.getHealthCheckProperties()
                .getProperty(CHECK_TIMEOUT_PROPERTY).trim());
            checks.put(poolName + CONNECTIVITY_CHECK, busyAware(connectivity, pool, usage, timeoutMillis));
        }
        // HikariCP 7.1 adds its 99th-percentile check only when it records into a registry itself; with a tracker
        // factory it does not, so it is added here, reading the same timer
        long expected99 = Long.parseLong(config.getHealthCheckProperties()
            .getProperty(PERCENTILE_PROPERTY, "0").trim());
        Timer wait = metrics.getTimers().get(ManagedHikariDataSource.metricName(poolName, "Wait"));
        if (expected99 > 0 && wait != null) {
            checks.put(poolName + PERCENTILE_CHECK, waitPercentile(wait, expected99));
        }
        hooks.forEach(hook -> checks.putAll(hook.healthChecks()));
        checks.replaceAll((name, check) -> {
            for (PoolHooks hook : hooks) {
                check = hook.healthCheck(name, check);
            }
            return reported(name, check, closed);
        });
        running = checks;
        if (application != null) {
            running.forEach(application::register);
        }
    }

    /** From now on, the checks go to {@code registry}, those of a running pool at once. */
    synchronized void bind(HealthCheckRegistry registry) {
        if (application == registry) {
            return;
        }
        if (application != null) {
            running.keySet().forEach(application::unregister);
        }
        application = registry;
        running.forEach(registry::register);
    }

    /** HikariCP's check, or while every connection is borrowed, healthy once one comes back in time. */
    private static HealthCheck busyAware(HealthCheck connectivity, HikariDataSource pool, Counting usage,
                                         long timeoutMillis) {
        return healthCheck(() -> {
            HikariPoolMXBean bean = pool.getHikariPoolMXBean();
            if (bean.getIdleConnections() > 0 || bean.getTotalConnections() < pool.getMaximumPoolSize()) {
                return connectivity.execute();
            }
            long returnsBefore = usage.getCount();
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            while (usage.getCount() == returnsBefore && System.nanoTime() < deadline) {
                Thread.sleep(RETURN_POLL_MILLIS);
            }
            return usage.getCount() > returnsBefore
                ? Result.builder().healthy().withMessage("busy: all %d connections borrowed, %d waiting; "
                    + "connections come back", bean.getTotalConnections(), bean.getThreadsAwaitingConnection()).build()
                : Result.unhealthy("all %d connections borrowed and none came back within %dms; %d waiting",
                    bean.getTotalConnections(), timeoutMillis, bean.getThreadsAwaitingConnection());
        });
    }

    private static HealthCheck waitPercentile(Timer wait, long expectedMillis) {
        return healthCheck(() -> {
            long percentile = TimeUnit.NANOSECONDS.toMillis(Math.round(wait.getSnapshot().get99thPercentile()));
            return percentile <= expectedMillis ? Result.healthy() : Result.unhealthy(
                "99th percentile connection wait time of %dms exceeds the threshold %dms", percentile, expectedMillis);
        });
    }

    /**
     * Unhealthy at once for a closed pool. An unhealthy result gives its cause's message, not the stack trace
     * {@code /healthcheck} would print. Each time the check turns unhealthy one WARN says so, with the stack trace
     * when the check failed on an exception.
     */
    private HealthCheck reported(String name, HealthCheck check, BooleanSupplier closed) {
        AtomicBoolean unhealthy = new AtomicBoolean();
        return healthCheck(() -> {
            Result result = closed.getAsBoolean() ? Result.unhealthy("pool %s is closed", poolName) : check.execute();
            boolean wasUnhealthy = unhealthy.getAndSet(!result.isHealthy());
            if (result.isHealthy()) {
                return result;
            }
            Throwable error = result.getError();
            String message = error == null ? result.getMessage() : message(error);
            if (!wasUnhealthy) {
                LOGGER.warn("Health check {} is unhealthy: {}", name, message, error);
            }
            return error == null ? result : Result.builder().unhealthy().withMessage(message).build();
        });
    }

    private static HealthCheck healthCheck(Callable<Result> body) {
        return new HealthCheck() {
            @Override
            protected Result check() throws Exception {
                return body.call();
            }
        };
    }

    /** @return the error's message, followed by its root cause's when that says something more */
    static String message(Throwable error) {
        Throwable root = ClassUtil.getRootCause(error);
        String message = Objects.requireNonNullElse(error.getMessage(), error.getClass().getName());
        String rootMessage = root.getMessage();
        return root == error || rootMessage == null || message.contains(rootMessage) ? message
            : message + ": " + rootMessage;
    }

    synchronized void unregister() {
        if (application != null) {
            running.keySet().forEach(application::unregister);
        }
        running = Map.of();
        // HikariCP registers its checks again when the same data source starts after a failed start
        hikariChecks.getNames().forEach(hikariChecks::unregister);
    }
}
