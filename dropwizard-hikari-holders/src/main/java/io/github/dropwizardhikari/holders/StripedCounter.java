package io.github.dropwizardhikari.holders;

import com.codahale.metrics.Counter;

import java.util.concurrent.atomic.AtomicLongArray;

/** Metrics' counter with a cell per {@link Stripes stripe}, each on a cache line of its own. */
final class StripedCounter extends Counter {
    // stripe s at line s + 1: the first and last lines keep the cells apart from what lies around the array
    private final AtomicLongArray cells = new AtomicLongArray((Stripes.COUNT + 2) * Stripes.LINE);

    void inc(int stripe) {
        cells.getAndIncrement((stripe + 1) * Stripes.LINE);
    }

    @Override
    public void inc(long n) {
        cells.getAndAdd((Stripes.current() + 1) * Stripes.LINE, n);
    }

    @Override
    public void dec(long n) {
        inc(-n);
    }

    @Override
    public long getCount() {
        long count = 0;
        for (int stripe = 0; stripe < Stripes.COUNT; stripe++) {
            count += cells.get((stripe + 1) * Stripes.LINE);
        }
        return count;
    }
}
