package io.github.dropwizardhikari.fairness;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Ends one borrower's wait inside HikariCP when its time is up, by interrupting the borrowing thread, and makes
 * sure that interrupt never outlives the borrow.
 *
 * <p>The deadline and the borrower's return from HikariCP can meet at any instant, so both sides move one state
 * with compare-and-set: whichever leaves {@code BORROWING} first decides. When the borrower does ({@code DONE}), no
 * interrupt is ever sent. When the deadline does, it interrupts ({@code INTERRUPTING}, then {@code INTERRUPTED}) and
 * the borrower, on its way out, waits for that interrupt to have landed and clears it, whatever HikariCP answered:
 * a connection HikariCP handed out at the same instant is kept.</p>
 *
 * <p>A thread has one interrupt flag. When the deadline finds it set already, the interrupt is someone else's:
 * HikariCP stops for it anyway, so the deadline sends nothing and the flag stays for its owner. An interrupt from
 * elsewhere that lands between the deadline's and the borrower's return is merged into the deadline's and cleared
 * with it, as two interrupts before one check always are.</p>
 */
final class BorrowDeadline implements Runnable {
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
     * @param timer     runs the deadline; a timer shut down with its pool arms nothing, and the closed pool refuses
     *                  the borrow itself
     * @param leftNanos the time the borrower has left; 0 or less interrupts at once
     */
    static BorrowDeadline arm(ScheduledExecutorService timer, long leftNanos) {
        BorrowDeadline deadline = new BorrowDeadline(Thread.currentThread());
        try {
            deadline.expiry = timer.schedule(deadline, leftNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopped) {
            deadline.state.set(DONE);
        }
        return deadline;
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
    boolean disarm() {
        int seen = state.compareAndExchange(BORROWING, DONE);
        if (seen == BORROWING) {
            // removed from the timer's queue at once (remove-on-cancel): a borrow that beat its deadline leaves
            // nothing behind
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
