package io.github.dropwizardhikari.faulthandling;

import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * MariaDB's view of its sessions: a session is its server thread id, which MariaDB Connector/J keeps from the
 * connection's handshake (no round trip to read it; it is what {@code SELECT CONNECTION_ID()} answers), and
 * {@code information_schema.PROCESSLIST} lists the ids the server holds (a user without the {@code PROCESS}
 * privilege sees its own sessions). Loaded only for a pool on MariaDB Connector/J.
 */
final class MariaDbSessions implements DeadSessionCheck.Sessions {
    @Override
    public long id(Connection connection) throws SQLException {
        return connection.isWrapperFor(org.mariadb.jdbc.Connection.class)
            ? connection.unwrap(org.mariadb.jdbc.Connection.class).getThreadId() : -1;
    }

    @Override
    public Set<Long> known(Connection monitor, Collection<Long> ids) throws SQLException {
        List<Long> asked = new ArrayList<>(ids);
        Set<Long> known = new HashSet<>();
        try (PreparedStatement statement = monitor.prepareStatement("SELECT ID FROM information_schema.PROCESSLIST "
            + "WHERE ID IN (" + String.join(",", Collections.nCopies(asked.size(), "?")) + ")")) {
            for (int i = 0; i < asked.size(); i++) {
                statement.setLong(i + 1, asked.get(i));
            }
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    known.add(rows.getLong(1));
                }
            }
        }
        return known;
    }

    /**
     * Closes the session's socket, which ends a read in progress at once; Connector/J 3.5's own {@code abort} would
     * wait for that read. A connection whose socket is not known is aborted on a thread of its own, not the check's.
     */
    @Override
    public void cut(Connection connection, long id) {
        if (!MariaDbSocketFactory.close(id)) {
            Thread aborting = new Thread(() -> {
                try {
                    connection.abort(Runnable::run);
                } catch (SQLException | RuntimeException e) {
                    // gone already
                }
            }, "session check abort");
            aborting.setDaemon(true);
            aborting.start();
        }
    }

    @Override
    public String describe(long id) {
        return "thread id " + id;
    }

    /** A proxy that hands out a thread id of its own (ProxySQL): the server's sessions cannot be told. */
    @Override
    @Nullable
    public String unusable(Connection monitor) throws SQLException {
        return notTheServers(monitor, "SELECT CONNECTION_ID()", "thread id",
            "a proxy such as ProxySQL stands between the pool and the server");
    }
}
