package io.github.dropwizardhikari.holders;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.UniformSnapshot;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The last holds of a series in sliding windows, one per {@link Stripes stripe}: a thread writes to its own stripe
 * with one atomic increment, and a snapshot merges the stripes, about the last {@link #SIZE} values in all. The count
 * of every value recorded is the sum of the stripes' positions, so its {@link WindowHistogram} keeps no counter of its
 * own.
 */
final class StripedWindowReservoir implements Reservoir {
    static final int SIZE = 1_024;
    // a power of two, so that a position's place in the window is a mask, not a division
    private static final int WINDOW = SIZE / Stripes.COUNT;
    private static final int STRIDE = Stripes.LINE + 1 + WINDOW;

    // stripe s: a cache line apart from what lies before it, then its count of values, then its window; the array
    // ends with a line apart from what lies after it
    private final AtomicLongArray cells = new AtomicLongArray(Stripes.COUNT * STRIDE + Stripes.LINE);

    @Override
    public int size() {
        int size = 0;
        for (int stripe = 0; stripe < Stripes.COUNT; stripe++) {
            size += (int) Math.min(WINDOW, cells.get(countOf(stripe)));
        }
        return size;
    }

    @Override
    public void update(long value) {
        update(Stripes.current(), value);
    }

    void update(int stripe, long value) {
        int count = countOf(stripe);
        long position = cells.getAndIncrement(count);
        cells.lazySet(count + 1 + (int) (position & (WINDOW - 1)), value);
    }

    private static int countOf(int stripe) {
        return stripe * STRIDE + Stripes.LINE;
    }

    /** @return how many values were recorded in all */
    long count() {
        long count = 0;
        for (int stripe = 0; stripe < Stripes.COUNT; stripe++) {
            count += cells.get(countOf(stripe));
        }
        return count;
    }

    @Override
    public Snapshot getSnapshot() {
        long[] values = new long[SIZE];
        int filled = 0;
        for (int stripe = 0; stripe < Stripes.COUNT; stripe++) {
            int count = countOf(stripe);
            long recorded = Math.min(WINDOW, cells.get(count));
            for (int i = 0; i < recorded; i++) {
                values[filled++] = cells.get(count + 1 + i);
            }
        }
        return new UniformSnapshot(Arrays.copyOf(values, filled));
    }

    /** Metrics' histogram of a striped window, counting what the window counts. */
    static final class WindowHistogram extends Histogram {
        private final StripedWindowReservoir window;

        WindowHistogram() {
            this(new StripedWindowReservoir());
        }

        private WindowHistogram(StripedWindowReservoir window) {
            super(window);
            this.window = window;
        }

        void update(int stripe, long value) {
            window.update(stripe, value);
        }

        @Override
        public void update(long value) {
            window.update(value);
        }

        @Override
        public long getCount() {
            return window.count();
        }
    }
}
