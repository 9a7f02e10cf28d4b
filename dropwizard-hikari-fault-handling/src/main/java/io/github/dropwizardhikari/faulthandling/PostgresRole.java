package io.github.dropwizardhikari.faulthandling;

import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * What a PostgreSQL server last reported of its role to a session (PostgreSQL 14 and later report both statuses to
 * every session; pgJDBC keeps them, so reading them sends nothing). Loaded only for a pool on pgJDBC.
 */
final class PostgresRole {
    private PostgresRole() {
    }

    /** @return the status that says the server is read-only ({@code in_hot_standby=on}), or {@code null} */
    @Nullable
    static String readOnlyEvidence(Connection connection) {
        try {
            if (!connection.isWrapperFor(PGConnection.class)) {
                return null;
            }
            PGConnection pg = connection.unwrap(PGConnection.class);
            for (String status : new String[] {"in_hot_standby", "default_transaction_read_only"}) {
                if ("on".equals(pg.getParameterStatus(status))) {
                    return status + "=on";
                }
            }
            return null;
        } catch (SQLException e) {
            return null;
        }
    }
}
