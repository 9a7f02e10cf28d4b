package io.github.dropwizardhikari;

import com.codahale.metrics.health.HealthCheck;
import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/** What one {@link PoolExtension} does for one running pool. Every method has a default that does nothing. */
public interface PoolHooks {
    PoolHooks NONE = new PoolHooks() { };

    /**
     * Around each {@code getConnection()} of the pool's data source.
     * @param next the rest of the borrow (the extensions listed after this one, then HikariCP): call it at most once
     */
    default Connection borrow(Borrow next) throws SQLException {
        return next.get();
    }

    /**
     * A borrow through the pool's data source has its connection: called for every extension, whatever its place in
     * the list, on the borrower's thread, after every {@link #borrow} has returned.
     */
    default void borrowed(Connection connection) { }

    /**
     * The connection {@link #borrowed} had is back (its first {@code close()} or {@code abort()}): called once per
     * borrow for every extension, whatever its place, on the thread that returned it; an exception is logged. Only
     * while a hook overrides this method does the core wrap the connections it lends, to learn of their return.
     */
    default void returned(Connection connection) { }

    /**
     * A borrow through the pool's data source failed, HikariCP's timeout or an extension's refusal alike: called for
     * every extension, in the order listed, on the borrower's thread, after every {@link #borrow} has returned.
     * @return what the borrower gets: {@code failure}, or an exception of its type that says more
     */
    default SQLException borrowFailed(SQLException failure) {
        return failure;
    }

    /** HikariCP has opened the pool; the pool's health checks are registered next. */
    default void started(HikariDataSource pool) { }

    /** @return what to register under {@code name} ({@code <pool>.pool.ConnectivityCheck}, ...) for {@code check} */
    default HealthCheck healthCheck(String name, HealthCheck check) {
        return check;
    }

    /** @return the extension's own health checks by full name, registered and removed with the pool's */
    default Map<String, HealthCheck> healthChecks() {
        return Map.of();
    }

    /** The pool is stopping, or failed to start: HikariCP is still open. */
    default void stopping() { }

    /** HikariCP has closed the pool (not called when it never opened). */
    default void stopped() { }

    @FunctionalInterface
    interface Borrow {
        Connection get() throws SQLException;
    }
}
