package io.github.dropwizardhikari.faulthandling;

import org.jspecify.annotations.Nullable;

import java.sql.SQLException;
import java.util.Locale;
import java.util.Set;

/**
 * The errors by which a driver says a connection is gone, for PostgreSQL, MariaDB/MySQL and H2. The standard's class
 * {@code 08} counts for any driver; vendor states and codes only for the driver that owns them (MariaDB's 2013 means
 * something else elsewhere).
 *
 * <p>HikariCP 7.1 evicts only on class {@code 08}, a few PostgreSQL states and three vendor codes, and skips the
 * alive-check of a connection used within the last 500 ms, so the rest would hand a dead connection out again.</p>
 */
final class ConnectionErrors {
    // PostgreSQL: admin_shutdown (pg_terminate_backend, fast shutdown), crash_shutdown, cannot_connect_now,
    // idle_session_timeout; idle_in_transaction_session_timeout closes the session too
    private static final ConnectionErrors POSTGRESQL = new ConnectionErrors(
        Set.of("57P01", "57P02", "57P03", "57P05", "25P03"), Set.of());
    // MariaDB/MySQL vendor codes: CR_CONNECTION_ERROR, CR_CONN_HOST_ERROR, CR_SERVER_GONE_ERROR, CR_SERVER_LOST,
    // CR_SERVER_LOST_EXTENDED, ER_CONNECTION_KILLED, ER_SERVER_SHUTDOWN, ER_NORMAL_SHUTDOWN, ER_GOT_SIGNAL,
    // ER_SHUTDOWN_COMPLETE, ER_ABORTING_CONNECTION, ER_NEW_ABORTING_CONNECTION, ER_CLIENT_INTERACTION_TIMEOUT
    private static final ConnectionErrors MARIADB = new ConnectionErrors(Set.of(),
        Set.of(2002, 2003, 2006, 2013, 2055, 1927, 1053, 1077, 1078, 1079, 1152, 1184, 4031));
    // H2 (its SQLState is its error code): CONNECTION_BROKEN_1, DATABASE_IS_CLOSED, DATABASE_CALLED_AT_SHUTDOWN
    private static final ConnectionErrors H2 = new ConnectionErrors(Set.of("90067", "90098", "90121"),
        Set.of());
    private static final ConnectionErrors STANDARD = new ConnectionErrors(Set.of(), Set.of());

    private final Set<String> lostStates;
    private final Set<Integer> lostCodes;

    private ConnectionErrors(Set<String> lostStates, Set<Integer> lostCodes) {
        this.lostStates = lostStates;
        this.lostCodes = lostCodes;
    }

    /** @return the standard SQLStates alone for a driver not listed here */
    static ConnectionErrors of(@Nullable String jdbcUrl, @Nullable String driverClassName,
                               @Nullable String dataSourceClassName) {
        // ":postgresql:" also finds a URL behind a wrapping driver (jdbc:otel:postgresql:...)
        String names = (jdbcUrl + " " + driverClassName + " " + dataSourceClassName).toLowerCase(Locale.ROOT);
        if (names.contains(":postgresql:") || names.contains("org.postgresql.")) {
            return POSTGRESQL;
        }
        if (names.contains(":mariadb:") || names.contains(":mysql:") || names.contains("org.mariadb.")
            || names.contains("com.mysql.")) {
            return MARIADB;
        }
        return names.contains(":h2:") || names.contains("org.h2.") ? H2 : STANDARD;
    }

    boolean isConnectionLoss(SQLException e) {
        String state = e.getSQLState();
        return (state != null && (state.startsWith("08") || lostStates.contains(state)))
            || lostCodes.contains(e.getErrorCode());
    }
}
