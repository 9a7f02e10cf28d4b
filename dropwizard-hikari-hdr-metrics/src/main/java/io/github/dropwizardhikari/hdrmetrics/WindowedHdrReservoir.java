package io.github.dropwizardhikari.hdrmetrics;

import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Snapshot;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.HdrHistogram.Recorder;

import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * A Metrics reservoir whose percentiles count every value of a window, on HdrHistogram: Metrics' default keeps a
 * decaying sample of 1,028 values, which under load may miss the rare long wait an alert reads.
 *
 * <p>Values go to {@link Recorder}s striped by thread (lock-free, two significant digits: within 1%). A snapshot
 * answers from the current window and the one before; a window rolls at the first snapshot once it is
 * {@code window} old, so with reads at least once a window a snapshot covers the last one to two windows.</p>
 */
final class WindowedHdrReservoir implements Reservoir {
    /** The default window: a snapshot covers the last one to two minutes. */
    static final long DEFAULT_WINDOW_SECONDS = 60;
    private static final int SIGNIFICANT_DIGITS = 2;
    // a power of two; one shared recorder's counters cost more than the pool itself on a multi-thread borrow cycle
    private static final int STRIPES = Integer.highestOneBit(Math.max(1,
        Runtime.getRuntime().availableProcessors() * 2 - 1)) * 2;

    private final Recorder[] recorders = new Recorder[STRIPES];
    private final long windowNanos;
    private final LongSupplier nanoTime;
    private Histogram previous = new Histogram(SIGNIFICANT_DIGITS);
    private Histogram current = new Histogram(SIGNIFICANT_DIGITS);
    private long windowStartNanos;

    WindowedHdrReservoir() {
        this(DEFAULT_WINDOW_SECONDS, TimeUnit.SECONDS, System::nanoTime);
    }

    WindowedHdrReservoir(long window, TimeUnit unit, LongSupplier nanoTime) {
        Arrays.setAll(recorders, stripe -> new Recorder(SIGNIFICANT_DIGITS));
        this.windowNanos = unit.toNanos(window);
        this.nanoTime = nanoTime;
        this.windowStartNanos = nanoTime.getAsLong();
    }

    @Override
    public int size() {
        return getSnapshot().size();
    }

    @Override
    public void update(long value) {
        // HdrHistogram records no negative value; a clock that stepped back gives a wait of 0
        recorders[stripe()].recordValue(Math.max(0, value));
    }

    // by thread id, mixed so that consecutive ids land on different stripes
    @SuppressWarnings("deprecation") // Thread.threadId() is JDK 19+; getId() is the same number
    private static int stripe() {
        long id = Thread.currentThread().getId();
        return (int) ((id * 0x9E3779B97F4A7C15L) >>> 32) & (STRIPES - 1);
    }

    @Override
    public Snapshot getSnapshot() {
        return new HdrSnapshot(window());
    }

    private synchronized Histogram window() {
        long now = nanoTime.getAsLong();
        if (now - windowStartNanos >= windowNanos) {
            previous = current;
            current = new Histogram(SIGNIFICANT_DIGITS);
            windowStartNanos = now;
        }
        // values recorded since the last read go to the window this read is in
        for (Recorder recorder : recorders) {
            current.add(recorder.getIntervalHistogram());
        }
        Histogram both = previous.copy();
        both.add(current);
        return both;
    }

    /** A snapshot read from one histogram. */
    private static final class HdrSnapshot extends Snapshot {
        // getValues(): one per permille, so a reporter that wants samples gets a faithful shape
        private static final int SAMPLES = 1_000;

        private final Histogram histogram;

        HdrSnapshot(Histogram histogram) {
            this.histogram = histogram;
        }

        @Override
        public double getValue(double quantile) {
            if (quantile < 0.0 || quantile > 1.0 || Double.isNaN(quantile)) {
                throw new IllegalArgumentException(quantile + " is not in [0..1]");
            }
            return histogram.getTotalCount() == 0 ? 0.0 : histogram.getValueAtPercentile(quantile * 100.0);
        }

        @Override
        public long[] getValues() {
            if (histogram.getTotalCount() == 0) {
                return new long[0];
            }
            long[] values = new long[SAMPLES];
            for (int i = 0; i < SAMPLES; i++) {
                values[i] = histogram.getValueAtPercentile((i + 1) * 100.0 / SAMPLES);
            }
            return values;
        }

        @Override
        public int size() {
            return (int) Math.min(Integer.MAX_VALUE, histogram.getTotalCount());
        }

        @Override
        public long getMax() {
            return histogram.getTotalCount() == 0 ? 0 : histogram.getMaxValue();
        }

        @Override
        public double getMean() {
            return histogram.getTotalCount() == 0 ? 0.0 : histogram.getMean();
        }

        @Override
        public long getMin() {
            return histogram.getTotalCount() == 0 ? 0 : histogram.getMinValue();
        }

        @Override
        public double getStdDev() {
            return histogram.getTotalCount() == 0 ? 0.0 : histogram.getStdDeviation();
        }

        @Override
        public void dump(OutputStream output) {
            try (PrintWriter out = new PrintWriter(new OutputStreamWriter(output, StandardCharsets.UTF_8))) {
                for (HistogramIterationValue value : histogram.recordedValues()) {
                    out.printf("%d %d%n", value.getValueIteratedTo(), value.getCountAtValueIteratedTo());
                }
            }
        }
    }
}
