package io.github.dropwizardhikari.holders;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where a thread writes the figures it records: stripes handed out in turn (so that a few threads never share one by
 * chance, as a hash of their ids would), each figure's stripes a cache line apart. Metrics' own {@code Counter} is a
 * {@code LongAdder} of at most one cell per processor, which more borrowing threads than processors share and fight
 * over.
 */
final class Stripes {
    // a power of two, twice the processors (a thread per stripe while no more threads record at once), 4 to 16
    static final int COUNT = Math.min(16,
        Integer.highestOneBit(Math.max(2, Runtime.getRuntime().availableProcessors()) - 1) * 4);
    // longs in a cache line: one stripe's cells start a line after the last one's
    static final int LINE = 8;
    private static final AtomicInteger NEXT = new AtomicInteger();
    private static final ThreadLocal<Integer> OWN = ThreadLocal.withInitial(Stripes::next);

    private Stripes() {
    }

    /** @return the stripe for a thread that keeps its own in its state */
    static int next() {
        return NEXT.getAndIncrement() & (COUNT - 1);
    }

    /** @return the current thread's stripe, for the callers that have no state of the thread at hand */
    static int current() {
        return OWN.get();
    }
}
