package io.github.dropwizardhikari.pool;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The deadline alone, with a blocking wait standing in for HikariCP's. */
class BorrowDeadlineTest {
    private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);

    BorrowDeadlineTest() {
        timer.setRemoveOnCancelPolicy(true);
    }

    @AfterEach
    void stopTimer() throws InterruptedException {
        timer.shutdownNow();
        assertThat(timer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aBorrowThatBeatsItsDeadlineIsNeverInterruptedAndLeavesNothingQueued() throws InterruptedException {
        BorrowDeadline deadline = BorrowDeadline.arm(timer, TimeUnit.MILLISECONDS.toNanos(200));

        assertThat(deadline.disarm()).isFalse();

        assertThat(timer.getQueue()).isEmpty();
        TimeUnit.MILLISECONDS.sleep(300);
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void theDeadlineEndsAWaitAndItsInterruptIsClearedOnDisarm() {
        long started = System.nanoTime();
        BorrowDeadline deadline = BorrowDeadline.arm(timer, TimeUnit.MILLISECONDS.toNanos(50));

        boolean interrupted = waitAsHikariDoes(TimeUnit.SECONDS.toMillis(20));

        assertThat(interrupted).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isBetween(50L, 5_000L);
        assertThat(deadline.disarm()).isTrue();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void anInterruptFromElsewhereIsLeftForItsOwner() throws InterruptedException {
        Thread.currentThread().interrupt();
        BorrowDeadline deadline = BorrowDeadline.arm(timer, 0);
        while (timer.getCompletedTaskCount() == 0) {
            Thread.onSpinWait();
        }

        assertThat(deadline.disarm()).isFalse();
        // reading the flag clears it, as its owner would
        assertThat(Thread.interrupted()).isTrue();
    }

    @Test
    void aTimerShutDownWithItsPoolArmsNothing() {
        timer.shutdown();
        BorrowDeadline deadline = BorrowDeadline.arm(timer, 0);

        assertThat(deadline.disarm()).isFalse();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    /**
     * The deadline and the borrower's return meet at every instant: whichever way each race goes, no interrupt
     * outlives the borrow.
     */
    @Test
    void noInterruptOutlivesTheBorrowWhenTheDeadlineAndTheReturnMeet() throws InterruptedException {
        int interrupted = 0;
        for (int i = 0; i < 20_000; i++) {
            long delay = ThreadLocalRandom.current().nextLong(20_000);
            BorrowDeadline deadline = BorrowDeadline.arm(timer, delay);
            spin(ThreadLocalRandom.current().nextLong(40_000));
            if (deadline.disarm()) {
                interrupted++;
            }
            assertThat(Thread.currentThread().isInterrupted()).as("round %d", i).isFalse();
        }
        // every deadline has run or was removed: none can interrupt later
        while (timer.getActiveCount() > 0 || !timer.getQueue().isEmpty()) {
            TimeUnit.MILLISECONDS.sleep(1);
        }
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        // both outcomes happened, so both paths were raced
        assertThat(interrupted).isBetween(1, 19_999);
    }

    /** Waits as HikariCP does for a connection; answers whether an interrupt ended the wait, flag set again. */
    private static boolean waitAsHikariDoes(long millis) {
        try {
            new SynchronousQueue<Object>().poll(millis, TimeUnit.MILLISECONDS);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    private static void spin(long nanos) {
        long until = System.nanoTime() + nanos;
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
    }
}
