package io.github.dropwizardhikari.holders;

import com.codahale.metrics.Reservoir;
import com.codahale.metrics.SlidingWindowReservoir;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.UniformSnapshot;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The last holds of a series in Metrics' own sliding windows, one per stripe, each thread writing to its stripe:
 * one synchronized window shared by every returning thread cost more than the rest of the extension on a
 * four-thread borrow cycle. A snapshot merges the stripes, about the last {@link #SIZE} values in all.
 */
final class StripedWindowReservoir implements Reservoir {
    static final int SIZE = 1_028;
    // a power of two, twice the processors (a thread per stripe while no more threads return at once), 4 to 16
    private static final int STRIPES = Math.min(16,
        Integer.highestOneBit(Math.max(2, Runtime.getRuntime().availableProcessors()) - 1) * 4);
    private static final AtomicInteger NEXT = new AtomicInteger();
    // handed out in turn, so that a few threads never share a stripe by chance as a hash of their ids would
    private static final ThreadLocal<Integer> STRIPE =
        ThreadLocal.withInitial(() -> NEXT.getAndIncrement() & (STRIPES - 1));

    private final SlidingWindowReservoir[] stripes = new SlidingWindowReservoir[STRIPES];

    StripedWindowReservoir() {
        Arrays.setAll(stripes, stripe -> new SlidingWindowReservoir(SIZE / STRIPES));
    }

    @Override
    public int size() {
        return Arrays.stream(stripes).mapToInt(SlidingWindowReservoir::size).sum();
    }

    @Override
    public void update(long value) {
        stripes[STRIPE.get()].update(value);
    }

    @Override
    public Snapshot getSnapshot() {
        return new UniformSnapshot(Arrays.stream(stripes).flatMapToLong(stripe -> Arrays.stream(
            stripe.getSnapshot().getValues())).toArray());
    }
}
