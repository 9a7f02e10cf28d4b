package io.github.dropwizardhikari;

import io.dropwizard.core.setup.Environment;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The pools built from one factory, and the application once {@link HikariBundle} has run: every client builds from
 * the factory the bundle is given, so the factory is where the bundle and the pools meet, whichever comes first.
 */
final class BuiltPools {
    private final List<ManagedHikariDataSource> pools = new ArrayList<>();
    private @Nullable Environment environment;

    /** @return the health checks of a new pool, bound to the application's registry once there is one */
    synchronized PoolHealthChecks healthChecksFor(String poolName) {
        return new PoolHealthChecks(poolName, environment == null ? null : environment.healthChecks());
    }

    synchronized void add(ManagedHikariDataSource pool) {
        forgetStoppedPools();
        pools.add(requireNonNull(pool, "pool"));
    }

    /** @return false when already bound to {@code environment}; else binds the pools' health checks to it, now on */
    synchronized boolean bind(Environment environment) {
        if (this.environment == requireNonNull(environment, "environment")) {
            return false;
        }
        this.environment = environment;
        forgetStoppedPools();
        pools.forEach(pool -> pool.bindHealthChecks(environment.healthChecks()));
        return true;
    }

    synchronized List<ManagedHikariDataSource> running() {
        forgetStoppedPools();
        return List.copyOf(pools);
    }

    private void forgetStoppedPools() {
        pools.removeIf(ManagedHikariDataSource::isClosed);
    }
}
