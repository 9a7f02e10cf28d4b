package io.github.dropwizardhikari.metrics;

/** Borrowers who wait before they reach HikariCP (the fair borrow gate's queue), for the pool's figures. */
public interface QueueBeforeThePool {
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

    /** @return how long this thread queued before the borrow HikariCP is recording, once; 0 if it did not queue */
    long takeQueuedNanos();
}
