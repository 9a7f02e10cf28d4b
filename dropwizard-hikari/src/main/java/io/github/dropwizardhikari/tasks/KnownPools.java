package io.github.dropwizardhikari.tasks;

import io.github.dropwizardhikari.pool.ManagedHikariDataSource;

import java.util.Collection;

/** Asked at every task request, so a pool built after the tasks were registered is found too. */
@FunctionalInterface
public interface KnownPools {
    /** @return every pool built in the application, started or not, including closed ones */
    Collection<ManagedHikariDataSource> all();
}
