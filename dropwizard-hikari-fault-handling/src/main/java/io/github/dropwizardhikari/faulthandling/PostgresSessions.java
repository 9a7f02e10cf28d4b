package io.github.dropwizardhikari.faulthandling;

import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/**
 * PostgreSQL's view of its sessions: a session is its backend pid, which pgJDBC keeps from the connection's start
 * (no round trip to read it), and {@code pg_stat_activity} lists the pids the server holds (a role sees its own
 * sessions' rows; the view reads shared memory, no table). Loaded only for a pool on pgJDBC.
 */
final class PostgresSessions implements DeadSessionCheck.Sessions {
    private static final String KNOWN = "SELECT pid FROM pg_stat_activity WHERE pid = ANY (?)";

    @Override
    public long id(Connection connection) throws SQLException {
        return connection.isWrapperFor(PGConnection.class) ? connection.unwrap(PGConnection.class).getBackendPID()
            : -1;
    }

    @Override
    public Set<Long> known(Connection monitor, Collection<Long> ids) throws SQLException {
        Set<Long> known = new HashSet<>();
        Array pids = monitor.createArrayOf("int4", ids.stream().map(Long::intValue).toArray());
        try (PreparedStatement statement = monitor.prepareStatement(KNOWN)) {
            statement.setArray(1, pids);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    known.add(rows.getLong(1));
                }
            }
        } finally {
            pids.free();
        }
        return known;
    }

    /** A pooler (PgBouncer) hands out a pid of its own: the server's sessions cannot be told from it. */
    @Override
    @Nullable
    public String unusable(Connection monitor) throws SQLException {
        return notTheServers(monitor, "SELECT pg_backend_pid()", "pid",
            "a pooler such as PgBouncer stands between the pool and the server");
    }
}
