package io.github.dropwizardhikari;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Timer;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.HikariConfig;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * HikariCP's pool metrics, recorded by HikariCP's own Dropwizard tracker: HikariCP's names and types, on a lock-free
 * reservoir registered first under those names, and every waiting borrower counted as waiting.
 */
class PoolMetricsTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, an unreachable database."
            + " WARN and ERROR lines in this log are expected.");
    }

    private final MetricRegistry metrics = new MetricRegistry();
    private final List<ManagedHikariDataSource> built = new ArrayList<>();

    @AfterEach
    void stopAll() {
        built.forEach(ManagedHikariDataSource::stop);
    }

    private ManagedHikariDataSource build(String name, String url) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(url);
        config.setUsername("sa");
        config.setMaximumPoolSize(2);
        config.setConnectionTimeout(500);
        config.setValidationTimeout(250);
        config.setMetricRegistry(metrics);
        ManagedHikariDataSource dataSource = TestPools.managed(config, metrics, null);
        built.add(dataSource);
        return dataSource;
    }

    private ManagedHikariDataSource build(String name) {
        return build(name, CountingDriver.url("reservoirs-" + name));
    }

    @Test
    void hikarisTimerAndHistogramsKeepTheirNamesAndTypesOnALockFreeReservoir() throws Exception {
        ManagedHikariDataSource dataSource = build("lockfree");
        try (Connection connection = dataSource.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }

        Timer wait = metrics.getTimers().get("lockfree.pool.Wait");
        Histogram usage = metrics.getHistograms().get("lockfree.pool.Usage");
        Histogram creation = metrics.getHistograms().get("lockfree.pool.ConnectionCreation");
        // HikariCP's tracker recorded into the metrics registered first: one borrow, one return
        assertThat(wait.getCount()).isEqualTo(1);
        assertThat(usage.getCount()).isEqualTo(1);
        for (Metric metric : List.of(wait, usage, creation)) {
            assertThat(reservoirOf(metric)).isInstanceOf(LockFreeExponentiallyDecayingReservoir.class);
        }
        assertThat(metrics.getMeters()).containsKey("lockfree.pool.ConnectionTimeoutRate");
        assertThat(metrics.getNames()).filteredOn(name -> name.startsWith("lockfree.pool.")).hasSize(10);
    }

    @Test
    void stopRemovesThemSoThePoolCanBeBuiltAgain() throws Exception {
        build("again").start();
        built.get(0).stop();
        assertThat(metrics.getNames()).noneMatch(name -> name.startsWith("again."));

        ManagedHikariDataSource second = build("again");
        try (Connection connection = second.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }
        assertThat(reservoirOf(metrics.getTimers().get("again.pool.Wait")))
            .isInstanceOf(LockFreeExponentiallyDecayingReservoir.class);
    }

    @Test
    void aSecondRunningPoolOfTheSameNameIsStillRefused() throws Exception {
        build("twin").start();
        ManagedHikariDataSource twin = build("twin");

        assertThatThrownBy(twin::start)
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("a pool named 'twin' is already registered");
        // the first pool's metrics are untouched
        assertThat(metrics.getNames()).filteredOn(name -> name.startsWith("twin.pool.")).hasSize(10);
    }

    @Test
    void aPoolThatFailsToStartLeavesNothingBehind() throws Exception {
        try (RefusedPort down = RefusedPort.take()) {
            ManagedHikariDataSource unreachable = build("down", down.h2Url());

            assertThatThrownBy(unreachable::start).isInstanceOf(SQLException.class);
            assertThat(metrics.getNames()).noneMatch(name -> name.startsWith("down."));
        }
    }

    /**
     * Sixteen borrowers queued behind four held connections are waiting, and every figure says so:
     * {@code PendingConnections}, HikariCP's pool bean and the {@code Wait} timer, whose longest wait is the whole
     * wait; the 99th-percentile check reads that timer.
     */
    @Test
    void borrowersQueuedBehindHeldConnectionsAreWaitingInEveryFigure() throws Exception {
        HikariConfig config = new HikariConfig();
        config.setPoolName("queued");
        config.setJdbcUrl(CountingDriver.url("reservoirs-queued"));
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(4);
        config.setConnectionTimeout(20_000);
        config.setMetricRegistry(metrics);
        config.addHealthCheckProperty("expected99thPercentileMs", "100");
        HealthCheckRegistry checks = new HealthCheckRegistry();
        config.setMetricRegistry(null);
        ManagedHikariDataSource dataSource = TestPools.managed(config, metrics, checks);
        built.add(dataSource);
        dataSource.start();
        HikariPoolMXBean bean = dataSource.unwrap(HikariDataSource.class).getHikariPoolMXBean();
        Gauge<?> pending = metrics.getGauges().get("queued.pool.PendingConnections");

        List<Connection> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            held.add(dataSource.getConnection());
        }
        ExecutorService borrowers = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> borrows = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                borrows.add(borrowers.submit(() -> {
                    try (Connection connection = dataSource.getConnection()) {
                        return connection.isValid(1);
                    }
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (bean.getThreadsAwaitingConnection() < 16 && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(5);
            }
            assertThat(bean.getThreadsAwaitingConnection()).as("the pool bean's waiting threads").isEqualTo(16);
            assertThat(pending.getValue()).as("PendingConnections").isEqualTo(16);
            TimeUnit.MILLISECONDS.sleep(300);
            for (Connection connection : held) {
                connection.close();
            }
            for (Future<?> borrow : borrows) {
                borrow.get(20, TimeUnit.SECONDS);
            }
        } finally {
            borrowers.shutdownNow();
        }
        Timer wait = metrics.getTimers().get("queued.pool.Wait");
        assertThat(wait.getCount()).isEqualTo(20);
        assertThat(TimeUnit.NANOSECONDS.toMillis(wait.getSnapshot().getMax())).as("the longest whole wait, in ms")
            .isGreaterThanOrEqualTo(300);
        // HikariCP refreshes its gauges at most once a second
        long settled = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!Integer.valueOf(0).equals(pending.getValue()) && System.nanoTime() < settled) {
            TimeUnit.MILLISECONDS.sleep(50);
        }
        assertThat(pending.getValue()).isEqualTo(0);
        // sixteen of twenty borrows waited 300 ms or more: the 99th percentile check reads the whole wait
        HealthCheck.Result percentile = checks.runHealthCheck("queued.pool.Connection99Percent");
        assertThat(percentile.isHealthy()).isFalse();
        assertThat(percentile.getMessage()).startsWith("99th percentile connection wait time of ")
            .endsWith("exceeds the threshold 100ms");
    }

    // Metrics exposes no getter for a reservoir: read the field, only to check which reservoir it is
    private static Reservoir reservoirOf(Metric metric) throws ReflectiveOperationException {
        Object histogram = metric;
        if (metric instanceof Timer) {
            histogram = field(Timer.class, "histogram").get(metric);
        }
        return (Reservoir) field(Histogram.class, "reservoir").get(histogram);
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }
}
