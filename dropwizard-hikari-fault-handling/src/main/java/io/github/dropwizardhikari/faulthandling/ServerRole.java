package io.github.dropwizardhikari.faulthandling;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Whether the server behind a pool that expects a primary still is one. On PostgreSQL 14 and later the server reports
 * {@code in_hot_standby} and {@code default_transaction_read_only} to every session, and pgJDBC keeps the last values
 * it received, so each borrow reads them without a round trip. A connection to a server that turned read-only (a
 * demoted primary, an address that still leads to the old one) is not handed out: its borrow fails with SQLState
 * 25006 naming the evidence, the pool's connections are retired, and so are those of the block's other pools and of
 * every pool of the application with {@code fault-handling} whose URL reaches the same server (the same host and
 * port, or a host name that resolved to the same address at start); a write refused as read-only counts the same. A
 * pool whose block does not set {@code failoverEviction} checks nothing itself, but is retired with the others. The
 * pool's connectivity check is unhealthy, with that cause, until a connection reports a writable server again.
 */
final class ServerRole {
    private static final Logger LOGGER = LoggerFactory.getLogger(ServerRole.class);
    private static final String READ_ONLY_STATE = "25006";

    private final String poolName;
    private final PrimaryServers block;
    private final PrimaryServers application;
    // host:port of each server the URL names, and address:port of each address they resolved to at start
    private final Set<String> endpoints;
    // whether borrows read the server's role (failoverEviction), or the pool is only retired with the others
    private final boolean checks;
    // the server's reported statuses of a driver connection, or null when its driver reports none
    private final Function<Connection, @Nullable String> readOnlyEvidence;
    @Nullable
    private volatile HikariDataSource pool;
    @Nullable
    private volatile String problem;
    private volatile long problemSinceNanos;

    ServerRole(String poolName, PrimaryServers block, PrimaryServers application, Set<String> endpoints,
               boolean checks, Function<Connection, @Nullable String> readOnlyEvidence) {
        this.poolName = poolName;
        this.block = block;
        this.application = application;
        this.endpoints = endpoints;
        this.checks = checks;
        this.readOnlyEvidence = readOnlyEvidence;
    }

    /**
     * @return the role check for a pool whose block expects a primary, or {@code null} for one that asks for a standby
     * ({@code readOnlyByDefault}, {@code targetServerType=secondary} or {@code preferSecondary}) or sets its own
     * sessions read-only
     */
    @Nullable
    static ServerRole of(HikariConfig config, PrimaryServers block, PrimaryServers application, boolean checks) {
        Properties properties = config.getDataSourceProperties();
        String settings = (config.getJdbcUrl() + " " + properties.getProperty("targetServerType", "") + " "
            + properties.getProperty("options", "")).toLowerCase(Locale.ROOT);
        if (config.isReadOnly() || settings.matches(".*targetservertype=(secondary|slave|prefersecondary|preferslave)"
            + "\\b.*") || settings.matches("(?s).* (secondary|slave|prefersecondary|preferslave) .*")
            || settings.contains("default_transaction_read_only")) {
            return null;
        }
        boolean postgres = settings.startsWith("jdbc:postgresql:");
        return new ServerRole(config.getPoolName(), block, application, endpoints(config.getJdbcUrl()), checks,
            postgres ? PostgresRole::readOnlyEvidence : connection -> null);
    }

    /**
     * @return {@code host:port} of each server a URL names ({@code jdbc:postgresql://a:5432,b/app}), with the
     * driver's default port where none is given, and {@code address:port} of each address the host resolves to now;
     * the URL itself when it names no host
     */
    static Set<String> endpoints(@Nullable String url) {
        Set<String> endpoints = new LinkedHashSet<>();
        if (url == null) {
            return endpoints;
        }
        String lower = url.toLowerCase(Locale.ROOT);
        int start = lower.indexOf("://");
        if (!lower.startsWith("jdbc:") || start < 0) {
            endpoints.add(lower);
            return endpoints;
        }
        String defaultPort = lower.startsWith("jdbc:postgresql:") ? "5432"
            : lower.startsWith("jdbc:mysql:") || lower.startsWith("jdbc:mariadb:") ? "3306" : "";
        String hosts = lower.substring(start + 3).split("[/?;]", 2)[0];
        for (String hostAndPort : hosts.split(",")) {
            int colon = hostAndPort.lastIndexOf(':');
            boolean hasPort = colon > hostAndPort.lastIndexOf(']');
            String host = (hasPort ? hostAndPort.substring(0, colon) : hostAndPort).replaceAll("[\\[\\]]", "");
            String port = hasPort ? hostAndPort.substring(colon + 1) : defaultPort;
            if (host.isEmpty()) {
                host = "localhost";
            }
            endpoints.add(host + ":" + port);
            try {
                for (InetAddress address : InetAddress.getAllByName(host)) {
                    endpoints.add(address.getHostAddress() + ":" + port);
                }
            } catch (UnknownHostException | SecurityException e) {
                // compared by name alone
            }
        }
        return endpoints;
    }

    /** @return whether the two pools' URLs reach a server in common */
    private boolean sameServer(ServerRole other) {
        return other.endpoints.stream().anyMatch(endpoints::contains);
    }

    void started(HikariDataSource running) {
        pool = running;
        block.join(this);
        application.join(this);
    }

    void stopping() {
        block.leave(this);
        application.leave(this);
        pool = null;
    }

    /**
     * Checks a connection just borrowed; closes it and throws when its server reports itself read-only.
     */
    Connection borrowed(Connection connection) throws SQLException {
        if (!checks) {
            return connection;
        }
        String evidence = evidence(connection);
        if (evidence == null) {
            if (problem != null) {
                recovered();
            }
            return connection;
        }
        String cause = "the server reports " + evidence;
        List<String> reached = reach(evidence);
        retire(cause, reached.isEmpty() ? "" : "; retired too, reaching the same server: " + String.join(", ",
            reached));
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
        List<String> reached = reach(evidence);
        if (!reached.isEmpty()) {
            LOGGER.warn("Pool {}: {}: retired too the pools reaching the same server: {}", poolName, evidence,
                String.join(", ", reached));
        }
    }

    /**
     * The evidence reaches the block's other running pools and the application's that reach the same server: each
     * retires its connections.
     *
     * @return the names of the pools retired
     */
    private List<String> reach(String evidence) {
        Set<ServerRole> others = new LinkedHashSet<>(block.running());
        application.running().stream().filter(this::sameServer).forEach(others::add);
        others.remove(this);
        List<String> reached = new ArrayList<>();
        for (ServerRole other : others) {
            if (other.retire("pool " + poolName + " found " + evidence, "")) {
                reached.add(other.poolName);
            }
        }
        return reached;
    }

    /**
     * Retires every connection of the pool, those in use when they are returned; one WARN per event.
     *
     * @return whether the pool runs, so was retired
     */
    boolean retire(String cause, String more) {
        HikariDataSource running = pool;
        if (running == null || running.getHikariPoolMXBean() == null) {
            return false;
        }
        running.getHikariPoolMXBean().softEvictConnections();
        if (problem == null) {
            problemSinceNanos = System.nanoTime();
            LOGGER.warn("Pool {}: {}: retired all {} connections of the pool, those in use when they are returned, as "
                + "after a failover{}", poolName, cause, running.getHikariPoolMXBean().getTotalConnections(), more);
        }
        problem = cause;
        return true;
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
