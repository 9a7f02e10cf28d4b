package io.github.dropwizardhikari.pool;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Timer;
import com.zaxxer.hikari.HikariConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** HikariCP's per-borrow metrics, recorded by HikariCP's own tracker on Metrics' lock-free reservoir. */
class LockFreeReservoirsTest {
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
        ManagedHikariDataSource dataSource = new ManagedHikariDataSource(config, null, PoolOptions.defaults());
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
        // HikariCP's tracker recorded into the metrics registered before it: one borrow, one return
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
    void aPoolThatFailsToStartLeavesNothingBehind() {
        ManagedHikariDataSource unreachable = build("down", "jdbc:h2:tcp://127.0.0.1:1/mem:none");

        assertThatThrownBy(unreachable::start).isInstanceOf(SQLException.class);
        assertThat(metrics.getNames()).noneMatch(name -> name.startsWith("down."));
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
