package io.github.dropwizardhikari.faulthandling;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Whether the server behind a pool that expects a primary still is one. On PostgreSQL 14 and later the server reports
 * {@code in_hot_standby} and {@code default_transaction_read_only} to every session, and pgJDBC keeps the last values
 * it received, so each borrow reads them without a round trip. A connection to a server that turned read-only (a
 * demoted primary, an address that still leads to the old one) is not handed out: its borrow fails with SQLState
 * 25006 naming the evidence, the pool's connections are retired, and so are those of the block's other pools (a
 * write refused as read-only counts the same). The pool's connectivity check is unhealthy, with that cause, until a
 * connection reports a writable server again.
 */
final class ServerRole {
    private static final Logger LOGGER = LoggerFactory.getLogger(ServerRole.class);
    private static final String READ_ONLY_STATE = "25006";

    private final String poolName;
    private final PrimaryServers block;
    // the server's reported statuses of a driver connection, or null when its driver reports none
    private final Function<Connection, @Nullable String> readOnlyEvidence;
    @Nullable
    private volatile HikariDataSource pool;
    @Nullable
    private volatile String problem;
    private volatile long problemSinceNanos;

    ServerRole(String poolName, PrimaryServers block, Function<Connection, @Nullable String> readOnlyEvidence) {
        this.poolName = poolName;
        this.block = block;
        this.readOnlyEvidence = readOnlyEvidence;
    }

    /**
     * @return the role check for a pool whose block expects a primary, or {@code null} for one that asks for a standby
     * ({@code readOnlyByDefault}, {@code targetServerType=secondary} or {@code preferSecondary}) or sets its own
     * sessions read-only
     */
    @Nullable
    static ServerRole of(HikariConfig config, PrimaryServers block) {
        Properties properties = config.getDataSourceProperties();
        String settings = (config.getJdbcUrl() + " " + properties.getProperty("targetServerType", "") + " "
            + properties.getProperty("options", "")).toLowerCase(Locale.ROOT);
        if (config.isReadOnly() || settings.matches(".*targetservertype=(secondary|slave|prefersecondary|preferslave)"
            + "\\b.*") || settings.matches("(?s).* (secondary|slave|prefersecondary|preferslave) .*")
            || settings.contains("default_transaction_read_only")) {
            return null;
        }
        boolean postgres = settings.startsWith("jdbc:postgresql:");
        return new ServerRole(config.getPoolName(), block, postgres ? PostgresRole::readOnlyEvidence
            : connection -> null);
    }

    String poolName() {
        return poolName;
    }

    void started(HikariDataSource running) {
        pool = running;
        block.join(this);
    }

    void stopping() {
        block.leave(this);
        pool = null;
    }

    /**
     * Checks a connection just borrowed; closes it and throws when its server reports itself read-only.
     */
    Connection borrowed(Connection connection) throws SQLException {
        String evidence = evidence(connection);
        if (evidence == null) {
            if (problem != null) {
                recovered();
            }
            return connection;
        }
        String cause = "the server reports " + evidence;
        retire(cause);
        block.readOnly(this, evidence);
        connection.close();
        throw new SQLException("pool " + poolName + ": " + cause + " under a block that expects a primary; the "
            + "block's connections are retired", READ_ONLY_STATE);
    }

    /** A write was refused as read-only on a connection of the pool (already evicted): the block learns of it. */
    void writeRefused(SQLException e) {
        String evidence = "a write refused as read-only (SQLState " + e.getSQLState() + ")";
        // the failover eviction has retired this pool and said so
        if (problem == null) {
            problemSinceNanos = System.nanoTime();
        }
        problem = "the server answered " + evidence;
        block.readOnly(this, evidence);
    }

    /** Retires every connection of the pool, those in use when they are returned; one WARN per event. */
    void retire(String cause) {
        HikariDataSource running = pool;
        if (running == null || running.getHikariPoolMXBean() == null) {
            return;
        }
        running.getHikariPoolMXBean().softEvictConnections();
        if (problem == null) {
            problemSinceNanos = System.nanoTime();
            LOGGER.warn("Pool {}: {}: retired all {} connections of the pool, those in use when they are returned, as "
                + "after a failover", poolName, cause, running.getHikariPoolMXBean().getTotalConnections());
        }
        problem = cause;
    }

    /** @return why the pool cannot serve its block now, while it cannot */
    Optional<String> problem() {
        String current = problem;
        if (current == null) {
            return Optional.empty();
        }
        // a check reads the server as it is now: a connection that reports a writable server ends the problem
        HikariDataSource running = pool;
        if (running != null) {
            try (Connection connection = running.getConnection()) {
                if (evidence(connection) == null && connection.isValid(1) && evidence(connection) == null) {
                    recovered();
                    return Optional.empty();
                }
            } catch (SQLException | RuntimeException e) {
                // the check itself says what is wrong then
            }
        }
        return Optional.of("pool " + poolName + " cannot serve a block that expects a primary: " + current + " ("
            + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - problemSinceNanos) + " ms ago)");
    }

    private void recovered() {
        if (problem != null) {
            problem = null;
            LOGGER.info("Pool {}: the server reports itself writable again", poolName);
        }
    }

    @Nullable
    private String evidence(Connection connection) {
        try {
            return readOnlyEvidence.apply(connection);
        } catch (RuntimeException e) {
            return null;
        }
    }
}
