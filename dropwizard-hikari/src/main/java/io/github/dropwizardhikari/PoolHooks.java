package io.github.dropwizardhikari;

import com.codahale.metrics.health.HealthCheck;
import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/**
 * What one {@link PoolExtension} does for one running pool. Every method has a default that does nothing.
 */
public interface PoolHooks {
    PoolHooks NONE = new PoolHooks() {
    };

    /**
     * Around each {@code getConnection()} of the pool's data source.
     *
     * @param next the rest of the borrow (the extensions listed after this one, then HikariCP): call it at most once
     */
    default Connection borrow(Borrow next) throws SQLException {
        return next.get();
    }

    /** HikariCP has opened the pool; the pool's health checks are registered next. */
    default void started(HikariDataSource pool) {
    }

    /**
     * @param name  the check's name in the application's registry ({@code <pool>.pool.ConnectivityCheck}, ...)
     * @param check the check as registered so far
     * @return the check to register under {@code name}
     */
    default HealthCheck healthCheck(String name, HealthCheck check) {
        return check;
    }

    /**
     * @return health checks of the extension's own, by full name, registered beside the pool's when it starts and
     * removed when it stops
     */
    default Map<String, HealthCheck> healthChecks() {
        return Map.of();
    }

    /** The pool is stopping, or failed to start: HikariCP is still open. */
    default void stopping() {
    }

    /** HikariCP has closed the pool (not called when it never opened). */
    default void stopped() {
    }

    /** The rest of a borrow. */
    @FunctionalInterface
    interface Borrow {
        Connection get() throws SQLException;
    }
}
