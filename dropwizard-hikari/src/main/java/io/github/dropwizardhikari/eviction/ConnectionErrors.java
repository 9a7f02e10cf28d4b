package io.github.dropwizardhikari.eviction;

import java.sql.SQLException;
import java.util.Locale;
import java.util.Set;

/**
 * What the drivers this project tests (PostgreSQL, MariaDB/MySQL, H2) report when a connection is gone, and when
 * a server refuses a write because it is read-only.
 *
 * <p>HikariCP evicts on SQLState class {@code 08}, a few PostgreSQL states and three vendor codes. The rest of a
 * driver's "the connection is gone" errors leave a dead connection in the pool, which the next borrower gets
 * back when it was used within the last 500 ms (HikariCP does not validate more recently used connections).</p>
 */
public final class ConnectionErrors {
    private static final Set<String> CONNECTION_LOST_STATES = Set.of(
        // PostgreSQL: admin_shutdown (pg_terminate_backend, fast shutdown), crash_shutdown, cannot_connect_now,
        // idle_session_timeout; idle_in_transaction_session_timeout closes the session too
        "57P01", "57P02", "57P03", "57P05", "25P03",
        // H2 (its SQLState is its error code): CONNECTION_BROKEN_1, DATABASE_IS_CLOSED,
        // DATABASE_CALLED_AT_SHUTDOWN
        "90067", "90098", "90121");

    // MariaDB/MySQL vendor codes: CR_CONNECTION_ERROR, CR_CONN_HOST_ERROR, CR_SERVER_GONE_ERROR, CR_SERVER_LOST,
    // CR_SERVER_LOST_EXTENDED, ER_CONNECTION_KILLED, ER_SERVER_SHUTDOWN, ER_NORMAL_SHUTDOWN, ER_GOT_SIGNAL,
    // ER_SHUTDOWN_COMPLETE, ER_ABORTING_CONNECTION, ER_NEW_ABORTING_CONNECTION, ER_CLIENT_INTERACTION_TIMEOUT
    private static final Set<Integer> CONNECTION_LOST_CODES = Set.of(
        2002, 2003, 2006, 2013, 2055, 1927, 1053, 1077, 1078, 1079, 1152, 1184, 4031);

    // read_only_sql_transaction (PostgreSQL; MySQL's ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION uses it too)
    private static final String READ_ONLY_STATE = "25006";
    // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION, ER_READ_ONLY_MODE, H2's DATABASE_IS_READ_ONLY
    private static final Set<Integer> READ_ONLY_CODES = Set.of(1792, 1836, 90097);
    // ER_OPTION_PREVENTS_STATEMENT names the option that refused the statement; only --read-only counts
    private static final int OPTION_PREVENTS_STATEMENT = 1290;

    private ConnectionErrors() {
    }

    /**
     * @return whether {@code e} says the connection it came from can no longer be used
     */
    public static boolean isConnectionLoss(SQLException e) {
        String state = e.getSQLState();
        if (state != null && (state.startsWith("08") || CONNECTION_LOST_STATES.contains(state))) {
            return true;
        }
        return CONNECTION_LOST_CODES.contains(e.getErrorCode());
    }

    /**
     * @return whether {@code e} says the server refused a write because it is read-only (a demoted primary, a
     * replica)
     */
    public static boolean isReadOnlyRejection(SQLException e) {
        if (READ_ONLY_STATE.equals(e.getSQLState()) || READ_ONLY_CODES.contains(e.getErrorCode())) {
            return true;
        }
        String message = e.getMessage();
        return e.getErrorCode() == OPTION_PREVENTS_STATEMENT && message != null
            && message.toLowerCase(Locale.ROOT).contains("read-only");
    }
}
