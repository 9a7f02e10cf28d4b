package io.github.dropwizardhikari.hdrmetrics;

import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class WindowedHdrReservoirTest {
    private final AtomicLong now = new AtomicLong(TimeUnit.HOURS.toNanos(1));

    @Test
    void everyValueCountsNotASample() {
        WindowedHdrReservoir reservoir = new WindowedHdrReservoir(60, TimeUnit.SECONDS, now::get);
        for (long value = 1; value <= 100_000; value++) {
            reservoir.update(value);
        }
        // one wait of a second among a hundred thousand short ones: a sample of 1,028 would most likely miss it
        reservoir.update(1_000_000_000L);

        Snapshot snapshot = reservoir.getSnapshot();
        assertThat(snapshot.size()).isEqualTo(100_001);
        assertThat(reservoir.size()).isEqualTo(100_001);
        // every value is kept to within 1% (two significant digits)
        assertThat((double) snapshot.getMax()).isCloseTo(1e9, within(1e7));
        assertThat(snapshot.get99thPercentile()).isCloseTo(99_000, within(990.0));
        assertThat(snapshot.getMedian()).isCloseTo(50_000, within(500.0));
        assertThat(snapshot.getMin()).isEqualTo(1);
        double mean = (100_000L * 100_001L / 2.0 + 1e9) / 100_001;
        assertThat(snapshot.getMean()).isCloseTo(mean, within(mean / 100));
        assertThat(snapshot.getValues()).hasSize(1_000).isSorted();
        ByteArrayOutputStream dump = new ByteArrayOutputStream();
        snapshot.dump(dump);
        assertThat(dump.toString(StandardCharsets.UTF_8)).startsWith("1 1");
    }

    @Test
    void valuesOlderThanTheWindowBeforeTheCurrentOneAreForgotten() {
        WindowedHdrReservoir reservoir = new WindowedHdrReservoir(60, TimeUnit.SECONDS, now::get);
        reservoir.update(5_000);
        assertThat(reservoir.getSnapshot().getMax()).isCloseTo(5_000, within(50L));

        now.addAndGet(TimeUnit.SECONDS.toNanos(61));
        reservoir.update(10);
        // a new window started: the first one's value is in the window before it
        assertThat(reservoir.getSnapshot().size()).isEqualTo(2);

        now.addAndGet(TimeUnit.SECONDS.toNanos(61));
        reservoir.update(20);
        Snapshot later = reservoir.getSnapshot();
        assertThat(later.size()).isEqualTo(2);
        assertThat(later.getMax()).isEqualTo(20);
        assertThat(later.getMin()).isEqualTo(10);
    }

    /** Values recorded by many threads at once are all counted, whichever stripe each thread records into. */
    @Test
    void concurrentRecordersLoseNothing() throws Exception {
        WindowedHdrReservoir reservoir = new WindowedHdrReservoir(60, TimeUnit.SECONDS, now::get);
        Thread[] threads = new Thread[16];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                for (int i = 0; i < 10_000; i++) {
                    reservoir.update(100);
                }
            });
            threads[t].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertThat(reservoir.getSnapshot().size()).isEqualTo(160_000);
        assertThat(reservoir.getSnapshot().getMax()).isEqualTo(100);
    }

    @Test
    void anEmptyReservoirAnswersZeros() {
        Snapshot snapshot = new WindowedHdrReservoir().getSnapshot();
        assertThat(snapshot.size()).isZero();
        assertThat(snapshot.getMax()).isZero();
        assertThat(snapshot.get99thPercentile()).isZero();
        assertThat(snapshot.getValues()).isEmpty();
    }

    @Test
    void aTimerOnItKeepsItsCountAndUnits() {
        Timer timer = new Timer(new WindowedHdrReservoir());
        timer.update(3, TimeUnit.MILLISECONDS);
        assertThat(timer.getCount()).isEqualTo(1);
        assertThat((double) timer.getSnapshot().getMax()).isCloseTo(3e6, within(3e4));
    }
}
