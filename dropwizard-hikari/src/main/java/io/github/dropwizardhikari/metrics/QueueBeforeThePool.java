package io.github.dropwizardhikari.metrics;

/**
 * Borrowers who wait before they reach HikariCP (the fair borrow gate's queue), so that the pool's figures count
 * them as waiting, as they are.
 */
public interface QueueBeforeThePool {
    /** No queue: every borrower goes to HikariCP at once. */
    QueueBeforeThePool NONE = new QueueBeforeThePool() {
        @Override
        public int waiting() {
            return 0;
        }

        @Override
        public long takeQueuedNanos() {
            return 0;
        }
    };

    /** @return borrowers waiting in the queue now */
    int waiting();

    /**
     * @return how long the current thread queued before the borrow HikariCP is now recording, once; 0 when it did
     * not queue
     */
    long takeQueuedNanos();
}
