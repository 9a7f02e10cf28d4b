package io.github.dropwizardhikari.holders;

import com.codahale.metrics.Snapshot;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class StripedWindowReservoirTest {
    @Test
    void aSnapshotHoldsWhatEveryThreadRecorded() throws InterruptedException {
        StripedWindowReservoir reservoir = new StripedWindowReservoir();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            long value = 100 * (t + 1);
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 10; i++) {
                    reservoir.update(value);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }

        Snapshot snapshot = reservoir.getSnapshot();
        assertThat(snapshot.size()).isEqualTo(30);
        assertThat(reservoir.size()).isEqualTo(30);
        assertThat(snapshot.getValues()).containsOnly(100L, 200L, 300L);
        assertThat(snapshot.getMin()).isEqualTo(100);
        assertThat(snapshot.getMax()).isEqualTo(300);
    }

    @Test
    void itsHistogramCountsEveryValueRecordedAndTheCounterEveryIncrement() throws InterruptedException {
        StripedWindowReservoir.WindowHistogram histogram = new StripedWindowReservoir.WindowHistogram();
        StripedCounter counter = new StripedCounter();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 2 * Stripes.COUNT + 1; t++) {
            int stripe = t % Stripes.COUNT;
            Thread thread = new Thread(() -> {
                for (int i = 0; i < 10_000; i++) {
                    histogram.update(stripe, i);
                    histogram.update(i);
                    counter.inc(stripe);
                    counter.inc();
                }
                counter.dec(3);
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }

        long each = 2 * 10_000L;
        assertThat(histogram.getCount()).isEqualTo(threads.size() * each);
        assertThat(counter.getCount()).isEqualTo(threads.size() * (each - 3));
        assertThat(histogram.getSnapshot().size()).isEqualTo(StripedWindowReservoir.SIZE);
        assertThat(histogram.getSnapshot().getMax()).isLessThan(10_000);
    }

    @Test
    void keepsAboutTheLastValuesOnly() {
        StripedWindowReservoir reservoir = new StripedWindowReservoir();
        for (long i = 0; i < 10 * StripedWindowReservoir.SIZE; i++) {
            reservoir.update(i < 9 * StripedWindowReservoir.SIZE ? 1 : 2);
        }

        // one thread fills one stripe: its window is the last of its values, never the old ones
        assertThat(reservoir.size()).isBetween(1, StripedWindowReservoir.SIZE);
        assertThat(reservoir.getSnapshot().getValues()).containsOnly(2L);
    }
}
