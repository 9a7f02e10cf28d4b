package io.github.dropwizardhikari.holders;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class HolderMetricsTest {
    private final HolderPools pools = new HolderPools();

    @AfterEach
    void stop() {
        pools.close();
    }

    @Test
    void eachHolderHasAHoldTimeHistogramAndABorrowCountUnderThePoolsPrefix() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("metrics", 2, 1_000);
        Labels labels = pools.extension.labels();
        labels.set(Holder.request("GET", "/people/{id}"));
        for (int i = 0; i < 3; i++) {
            try (Connection ignored = dataSource.getConnection()) {
                TimeUnit.MILLISECONDS.sleep(20);
            }
        }
        labels.set(Holder.task("pool-evict"));
        dataSource.getConnection().close();
        labels.clear();
        dataSource.getConnection().close();

        assertThat(pools.metrics.counter("metrics.pool.Holders.GET /people/{id}.Borrows").getCount()).isEqualTo(3);
        assertThat(pools.metrics.histogram("metrics.pool.Holders.GET /people/{id}.Usage").getSnapshot().getMin())
            .as("ms held").isBetween(20L, 20_000L);
        assertThat(pools.metrics.histogram("metrics.pool.Holders.GET /people/{id}.Usage").getCount()).isEqualTo(3);
        assertThat(pools.metrics.counter("metrics.pool.Holders.task \"pool-evict\".Borrows").getCount()).isEqualTo(1);
        // a thread outside requests and tasks: one series, whatever its name
        assertThat(pools.metrics.counter("metrics.pool.Holders.other.Borrows").getCount()).isEqualTo(1);
        assertThat(pools.metrics.histogram("metrics.pool.Holders.other.Usage").getCount()).isEqualTo(1);
    }

    @Test
    void borrowsAndHoldsAreCountedExactlyFromManyThreadsAtOnce() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("many", 4, 5_000);
        int threads = 3 * Stripes.COUNT;
        int cycles = 500;
        List<Thread> borrowers = new ArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        for (int t = 0; t < threads; t++) {
            borrowers.add(new Thread(() -> {
                try {
                    for (int i = 0; i < cycles; i++) {
                        dataSource.getConnection().close();
                    }
                } catch (Exception | AssertionError e) {
                    failures.add(e);
                }
            }));
        }
        borrowers.forEach(Thread::start);
        for (Thread borrower : borrowers) {
            borrower.join();
        }

        assertThat(failures).isEmpty();
        assertThat(pools.metrics.counter("many.pool.Holders.other.Borrows").getCount()).isEqualTo(threads * cycles);
        Histogram usage = pools.metrics.histogram("many.pool.Holders.other.Usage");
        assertThat(usage.getCount()).isEqualTo(threads * cycles);
        assertThat(usage.getSnapshot().size()).isBetween(1, StripedWindowReservoir.SIZE);
    }

    @Test
    void metricsRegisteredFirstUnderTheNamesAreTheOnesCounted() throws Exception {
        // another part of the application got there first, with Metrics' own types
        Counter borrows = pools.metrics.counter("first.pool.Holders.other.Borrows");
        Histogram usage = pools.metrics.histogram("first.pool.Holders.other.Usage");
        ManagedHikariDataSource dataSource = pools.build("first", 1, 1_000);
        dataSource.getConnection().close();
        dataSource.getConnection().close();

        assertThat(borrows.getCount()).isEqualTo(2);
        assertThat(usage.getCount()).isEqualTo(2);
    }

    @Test
    void aDotInATemplateDoesNotSplitTheName() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("dots", 1, 1_000);
        pools.extension.labels().set(Holder.request("GET", "/files/{name}.json"));
        try {
            dataSource.getConnection().close();
        } finally {
            pools.extension.labels().clear();
        }
        assertThat(pools.metrics.getCounters()).containsKey("dots.pool.Holders.GET /files/{name}_json.Borrows");
    }

    @Test
    void theSeriesAreBoundedAndRemovedWhenThePoolStops() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("bounded", 1, 1_000);
        Labels labels = pools.extension.labels();
        for (int i = 0; i < PoolHolds.MAX_SERIES + 10; i++) {
            labels.set(Holder.task("task-" + i));
            dataSource.getConnection().close();
        }
        labels.clear();
        assertThat(pools.metrics.getCounters().keySet()).filteredOn(name -> name.startsWith("bounded.pool.Holders."))
            .hasSize(PoolHolds.MAX_SERIES + 1);
        assertThat(pools.metrics.counter("bounded.pool.Holders.other.Borrows").getCount()).isEqualTo(10);

        dataSource.stop();
        assertThat(pools.metrics.getNames()).noneMatch(name -> name.startsWith("bounded.pool.Holders."));
    }
}
