package io.github.dropwizardhikari.pool;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dropwizardhikari.metrics.PoolMetricsTrackerFactory;
import io.github.dropwizardhikari.metrics.WaitPercentileCheck;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * HikariCP's health checks of one pool in the application's registry: HikariCP registers them in a registry of
 * the pool's own, and each is registered again here, so that it can be removed on stop and answers at once for a
 * closed pool (HikariCP 7.1's connectivity check would wait its whole timeout on a pool that cannot recover).
 */
final class PoolHealthChecks {
    private static final String CONNECTIVITY_CHECK = ".pool.ConnectivityCheck";
    // how long HikariCP's connectivity check waits: HikariCP 7.1 defaults it to the connection timeout, the bundle to
    // the validation timeout (at most the connection timeout)
    private static final String CHECK_TIMEOUT_PROPERTY = "connectivityCheckTimeoutMs";

    private final String poolName;
    @Nullable
    private final HealthCheckRegistry application;
    private final HealthCheckRegistry hikariChecks = new HealthCheckRegistry();
    private final List<String> registered = new ArrayList<>();

    PoolHealthChecks(String poolName, @Nullable HealthCheckRegistry application) {
        this.poolName = poolName;
        this.application = application;
    }

    /** Points HikariCP at the pool's own registry, and bounds its connectivity check. */
    void configure(HikariConfig config) {
        if (application != null) {
            config.setHealthCheckRegistry(hikariChecks);
        }
        config.getHealthCheckProperties().putIfAbsent(CHECK_TIMEOUT_PROPERTY,
            Long.toString(Math.min(config.getValidationTimeout(), config.getConnectionTimeout())));
    }

    /** Registers HikariCP's checks in the application's registry, once the pool has started. */
    synchronized void register(HikariConfig config, @Nullable MetricRegistry metrics, BooleanSupplier closed,
                               PoolExtras extras, HikariDataSource started) {
        if (application == null) {
            return;
        }
        // HikariCP 7.1 adds its 99th-percentile check only when it records into a registry itself; the bundle's
        // tracker records instead, so the bundle adds the check, reading the same timer
        long expected99 = Long.parseLong(config.getHealthCheckProperties()
            .getProperty(WaitPercentileCheck.PROPERTY, "0").trim());
        Timer wait = metrics == null ? null : metrics.getTimers().get(PoolMetricsTrackerFactory.waitName(poolName));
        if (expected99 > 0 && wait != null) {
            hikariChecks.register(poolName + WaitPercentileCheck.NAME, new WaitPercentileCheck(wait, expected99));
        }
        long timeout = Long.parseLong(config.getHealthCheckProperties().getProperty(CHECK_TIMEOUT_PROPERTY).trim());
        for (String name : hikariChecks.getNames()) {
            HealthCheck check = hikariChecks.getHealthCheck(name);
            if (name.equals(poolName + CONNECTIVITY_CHECK)) {
                check = extras.connectivityCheck(check, started, timeout);
            }
            application.register(name, unhealthyOnceClosed(check, closed));
            registered.add(name);
        }
    }

    private HealthCheck unhealthyOnceClosed(HealthCheck hikariCheck, BooleanSupplier closed) {
        return new HealthCheck() {
            @Override
            protected Result check() {
                return closed.getAsBoolean() ? Result.unhealthy("pool %s is closed", poolName) : hikariCheck.execute();
            }
        };
    }

    synchronized void unregister() {
        if (application != null) {
            registered.forEach(application::unregister);
        }
        registered.clear();
        // HikariCP registers its checks again when the same data source starts after a failed start
        hikariChecks.getNames().forEach(hikariChecks::unregister);
    }
}
