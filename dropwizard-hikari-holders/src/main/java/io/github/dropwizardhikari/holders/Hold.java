package io.github.dropwizardhikari.holders;

import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.SQLException;

/** One borrowed connection: who borrowed it, on which thread, since when, and the stack if it was captured. */
final class Hold {
    final Connection connection;
    final Holder holder;
    final String thread;
    final long startNanos;
    @Nullable
    final Throwable stack;
    // set once, by the pool's sweeper, when the hold has been warned about as a leak
    boolean warned;

    Hold(Connection connection, Holder holder, String thread, long startNanos, @Nullable Throwable stack) {
        this.connection = connection;
        this.holder = holder;
        this.thread = thread;
        this.startNanos = startNanos;
        this.stack = stack;
    }

    /** HikariCP's proxy answers closed once the application has closed it, before it records the return. */
    boolean closed() {
        try {
            return connection.isClosed();
        } catch (SQLException e) {
            return false;
        }
    }

    long heldNanos(long nowNanos) {
        return nowNanos - startNanos;
    }
}
