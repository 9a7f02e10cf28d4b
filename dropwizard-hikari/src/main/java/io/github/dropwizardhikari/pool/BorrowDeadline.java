package io.github.dropwizardhikari.pool;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ends one borrower's wait inside HikariCP when its time is up, or when another thread decides that waiting cannot
 * help, by interrupting the borrowing thread, and makes sure that interrupt never outlives the borrow.
 *
 * <p>Deadline and borrower race, so each leaves {@code BORROWING} by compare-and-set and the first decides. If the
 * deadline wins, the borrower waits for the interrupt to land and clears it (with any other that landed meanwhile),
 * keeping a connection HikariCP handed out at that instant. A flag already set is someone else's interrupt, which
 * stops HikariCP anyway: the deadline leaves it for its owner.</p>
 */
public final class BorrowDeadline implements Runnable {
    private static final int BORROWING = 0;
    private static final int DONE = 1;
    private static final int INTERRUPTING = 2;
    private static final int INTERRUPTED = 3;

    private final Thread borrower;
    private final AtomicInteger state = new AtomicInteger(BORROWING);
    @Nullable
    private ScheduledFuture<?> expiry;

    private BorrowDeadline(Thread borrower) {
        this.borrower = borrower;
    }

    /**
     * Arms a deadline for the calling thread.
     *
     * @param timer     a timer shut down with its pool arms nothing: the closed pool refuses the borrow itself
     * @param leftNanos 0 or less interrupts at once
     */
    public static BorrowDeadline arm(ScheduledExecutorService timer, long leftNanos) {
        BorrowDeadline deadline = new BorrowDeadline(Thread.currentThread());
        try {
            deadline.expiry = timer.schedule(deadline, leftNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopped) {
            deadline.state.set(DONE);
        }
        return deadline;
    }

    /** A deadline for the calling thread with no timer: it ends when another thread calls {@link #run()}. */
    public static BorrowDeadline onDemand() {
        return new BorrowDeadline(Thread.currentThread());
    }

    /** Time is up: interrupts the borrower, unless it has returned from HikariCP already. */
    @Override
    public void run() {
        if (!state.compareAndSet(BORROWING, INTERRUPTING)) {
            return;
        }
        if (borrower.isInterrupted()) {
            state.set(DONE);
            return;
        }
        borrower.interrupt();
        state.set(INTERRUPTED);
    }

    /**
     * Called by the borrower once HikariCP has answered, whatever the answer.
     *
     * @return whether the deadline interrupted the borrower; that interrupt is cleared by the time this returns
     */
    public boolean disarm() {
        int seen = state.compareAndExchange(BORROWING, DONE);
        if (seen == BORROWING) {
            // remove-on-cancel: a borrow that beat its deadline leaves nothing in the timer's queue
            if (expiry != null) {
                expiry.cancel(false);
            }
            return false;
        }
        if (seen == DONE) {
            return false;
        }
        // the deadline is between its decision and its interrupt: a few instructions
        while (state.get() != INTERRUPTED) {
            Thread.onSpinWait();
        }
        Thread.interrupted();
        return true;
    }
}
