package io.github.dropwizardhikari.holders;

import org.jspecify.annotations.Nullable;

import java.sql.Connection;

/** One borrowed connection: who borrowed it, on which thread, since when, and the stack if it was captured. */
final class Hold {
    final Connection connection;
    final Holder holder;
    final PoolHolds.Series series;
    final String thread;
    final long startNanos;
    @Nullable
    final Throwable stack;
    // set once, by the timer or the closing thread, when the hold has been warned about as a leak: a plain field
    // under the hold's lock, since a warning is rare and every borrow allocates a hold
    private boolean warned;

    // the slot the hold took, set by the borrowing thread just after taking it (-1 until then); a plain field, since
    // a thread that reads -1 looks for the hold in every slot, and a fence on each borrow costs more than that search
    int slot = -1;

    Hold(Connection connection, Holder holder, PoolHolds.Series series, String thread, long startNanos,
        @Nullable Throwable stack) {
        this.connection = connection;
        this.holder = holder;
        this.series = series;
        this.thread = thread;
        this.startNanos = startNanos;
        this.stack = stack;
    }

    /** @return whether this call is the first to warn about the hold */
    synchronized boolean warnOnce() {
        boolean first = !warned;
        warned = true;
        return first;
    }

    long heldNanos(long nowNanos) {
        return nowNanos - startNanos;
    }
}
