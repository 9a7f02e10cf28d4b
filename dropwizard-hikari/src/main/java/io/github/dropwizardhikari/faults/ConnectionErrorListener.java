package io.github.dropwizardhikari.faults;

import java.sql.SQLException;

/** Told about the errors {@link ConnectionLossOverride} recognises, on the thread that used the connection. */
interface ConnectionErrorListener {
    /** A connection of the pool failed at the connection level; it is evicted. */
    void connectionLost(SQLException e);

    /**
     * The server refused a write as read-only.
     *
     * @return whether the connection should be evicted
     */
    boolean readOnlyRejected(SQLException e);
}
