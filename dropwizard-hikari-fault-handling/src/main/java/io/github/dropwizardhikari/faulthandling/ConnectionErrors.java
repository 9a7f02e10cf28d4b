package io.github.dropwizardhikari.faulthandling;

import org.jspecify.annotations.Nullable;

import java.sql.SQLException;
import java.util.Locale;
import java.util.Set;

/**
 * The errors by which a driver says a connection is gone, or a server refused a write as read-only, for PostgreSQL,
 * MariaDB/MySQL and H2. Standard SQLStates ({@code 08xxx}, {@code 25006}) count for any driver; vendor states and
 * codes only for the driver that owns them (MariaDB's 2013 means something else elsewhere).
 *
 * <p>HikariCP 7.1 evicts only on class {@code 08}, a few PostgreSQL states and three vendor codes, and skips the
 * alive-check of a connection used within the last 500 ms, so the rest would hand a dead connection out again.</p>
 */
final class ConnectionErrors {
    // PostgreSQL: admin_shutdown (pg_terminate_backend, fast shutdown), crash_shutdown, cannot_connect_now,
    // idle_session_timeout; idle_in_transaction_session_timeout closes the session too
    private static final ConnectionErrors POSTGRESQL = new ConnectionErrors("PostgreSQL",
        Set.of("57P01", "57P02", "57P03", "57P05", "25P03"), Set.of(), Set.of());
    // MariaDB/MySQL vendor codes: CR_CONNECTION_ERROR, CR_CONN_HOST_ERROR, CR_SERVER_GONE_ERROR, CR_SERVER_LOST,
    // CR_SERVER_LOST_EXTENDED, ER_CONNECTION_KILLED, ER_SERVER_SHUTDOWN, ER_NORMAL_SHUTDOWN, ER_GOT_SIGNAL,
    // ER_SHUTDOWN_COMPLETE, ER_ABORTING_CONNECTION, ER_NEW_ABORTING_CONNECTION, ER_CLIENT_INTERACTION_TIMEOUT;
    // read-only: ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION, ER_READ_ONLY_MODE
    private static final ConnectionErrors MARIADB = new ConnectionErrors("MariaDB/MySQL", Set.of(),
        Set.of(2002, 2003, 2006, 2013, 2055, 1927, 1053, 1077, 1078, 1079, 1152, 1184, 4031), Set.of(1792, 1836));
    // H2 (its SQLState is its error code): CONNECTION_BROKEN_1, DATABASE_IS_CLOSED, DATABASE_CALLED_AT_SHUTDOWN;
    // read-only: DATABASE_IS_READ_ONLY
    private static final ConnectionErrors H2 = new ConnectionErrors("H2", Set.of("90067", "90098", "90121"),
        Set.of(), Set.of(90097));
    private static final ConnectionErrors STANDARD = new ConnectionErrors("standard SQLStates only", Set.of(),
        Set.of(), Set.of());

    // read_only_sql_transaction: the standard's own state, which PostgreSQL and MySQL use
    private static final String READ_ONLY_STATE = "25006";
    // ER_OPTION_PREVENTS_STATEMENT names the option that refused the statement; only --read-only counts
    private static final int OPTION_PREVENTS_STATEMENT = 1290;

    private final String driver;
    private final Set<String> lostStates;
    private final Set<Integer> lostCodes;
    private final Set<Integer> readOnlyCodes;

    private ConnectionErrors(String driver, Set<String> lostStates, Set<Integer> lostCodes,
                             Set<Integer> readOnlyCodes) {
        this.driver = driver;
        this.lostStates = lostStates;
        this.lostCodes = lostCodes;
        this.readOnlyCodes = readOnlyCodes;
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

    /** @return whether the server refused a write as read-only (a demoted primary, a replica) */
    boolean isReadOnlyRejection(SQLException e) {
        String message = e.getMessage();
        return READ_ONLY_STATE.equals(e.getSQLState()) || readOnlyCodes.contains(e.getErrorCode())
            || (this == MARIADB && e.getErrorCode() == OPTION_PREVENTS_STATEMENT && message != null
                && message.toLowerCase(Locale.ROOT).contains("read-only"));
    }

    @Override
    public String toString() {
        return "ConnectionErrors{" + driver + "}";
    }
}
