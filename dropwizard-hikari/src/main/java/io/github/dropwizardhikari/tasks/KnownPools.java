package io.github.dropwizardhikari.tasks;

import io.github.dropwizardhikari.pool.ManagedHikariDataSource;

import java.util.Collection;

/**
 * The pools an application has built so far, whichever client built them. The admin tasks ask at every request,
 * so a pool built after the tasks were registered (by JDBI, Hibernate or the application) is found too.
 */
@FunctionalInterface
public interface KnownPools {
    /**
     * @return every pool built in the application, started or not, including closed ones
     */
    Collection<ManagedHikariDataSource> all();
}
