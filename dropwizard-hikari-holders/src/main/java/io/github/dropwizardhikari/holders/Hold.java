package io.github.dropwizardhikari.holders;

import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;

/** One borrowed connection: who borrowed it, on which thread, since when, and the stack if it was captured. */
final class Hold {
    final Connection connection;
    final Holder holder;
    final PoolHolds.Series series;
    final String thread;
    final long startNanos;
    @Nullable
    final Throwable stack;
    // set once, by the sweeper or the closing thread, when the hold has been warned about as a leak
    private final AtomicBoolean warned = new AtomicBoolean();

    // the slot the hold took, set by the borrowing thread just after taking it (-1 until then)
    volatile int slot = -1;

    Hold(Connection connection, Holder holder, PoolHolds.Series series, String thread, long startNanos,
        @Nullable Throwable stack) {
        this.connection = connection;
        this.holder = holder;
        this.series = series;
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

    /** @return whether this call is the first to warn about the hold */
    boolean warnOnce() {
        return !warned.get() && warned.compareAndSet(false, true);
    }

    long heldNanos(long nowNanos) {
        return nowNanos - startNanos;
    }
}
