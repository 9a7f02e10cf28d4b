package io.github.dropwizardhikari.operations;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.db.ManagedDataSource;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.PoolExtension;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** The Tomcat-named gauges against those of a real Tomcat pool built by Dropwizard's own factory. */
class TomcatMetricNamesTest {
    private static final String POOL = "db";

    private static SortedMap<String, Class<?>> tomcatGauges(MetricRegistry registry) {
        SortedMap<String, Class<?>> types = new TreeMap<>();
        registry.getGauges().forEach((name, gauge) -> {
            if (name.startsWith(TomcatMetricNames.PREFIX + ".")) {
                types.put(name, gauge.getValue().getClass());
            }
        });
        return types;
    }

    @Test
    void namesAndValueTypesEqualThoseOfDropwizardsTomcatPool() throws Exception {
        MetricRegistry tomcatRegistry = new MetricRegistry();
        DataSourceFactory tomcat = new DataSourceFactory();
        tomcat.setDriverClass("org.h2.Driver");
        tomcat.setUrl("jdbc:h2:mem:tomcat-names;DB_CLOSE_DELAY=-1");
        tomcat.setUser("sa");
        ManagedDataSource tomcatPool = tomcat.build(tomcatRegistry, POOL);
        tomcatPool.start();
        SortedMap<String, Class<?>> expected;
        try {
            expected = tomcatGauges(tomcatRegistry);
        } finally {
            tomcatPool.stop();
        }

        MetricRegistry hikariRegistry = new MetricRegistry();
        HikariDataSourceFactory hikari = new HikariDataSourceFactory();
        hikari.setUrl("jdbc:h2:mem:hikari-names;DB_CLOSE_DELAY=-1");
        hikari.setUser("sa");
        ManagedDataSource hikariPool = hikari.build(hikariRegistry, POOL);
        hikariPool.start();
        try {
            TomcatMetricNames names = TomcatMetricNames.register(hikariRegistry, POOL,
                hikariPool.unwrap(HikariDataSource.class).getHikariPoolMXBean());

            assertThat(expected).hasSize(11);
            assertThat(tomcatGauges(hikariRegistry)).isEqualTo(expected);

            names.remove();
            assertThat(tomcatGauges(hikariRegistry)).isEmpty();
            assertThat(hikariRegistry.getNames()).as("HikariCP's own metrics stay").contains("db.pool.Wait");
        } finally {
            hikariPool.stop();
        }
    }

    @Test
    void valuesFollowThePool() throws Exception {
        MetricRegistry registry = new MetricRegistry();
        HikariDataSourceFactory hikari = new HikariDataSourceFactory();
        hikari.setUrl("jdbc:h2:mem:hikari-values;DB_CLOSE_DELAY=-1");
        hikari.setUser("sa");
        hikari.setMaxSize(3);
        ManagedDataSource pool = hikari.build(registry, POOL);
        pool.start();
        try {
            HikariDataSource running = pool.unwrap(HikariDataSource.class);
            TomcatMetricNames.register(registry, POOL, running.getHikariPoolMXBean());
            try (Connection first = pool.getConnection(); Connection second = pool.getConnection()) {
                Map<String, Object> values = values(registry);
                assertThat(values).containsEntry("active", 2).containsEntry("borrowed", 2L)
                    .containsEntry("returned", 0L).containsEntry("waiting", 0);
            }
            running.getHikariPoolMXBean().softEvictConnections();
            // borrowing three again makes the pool open new connections for the evicted ones
            try (Connection first = pool.getConnection(); Connection second = pool.getConnection();
                 Connection third = pool.getConnection()) {
                assertThat(values(registry)).containsEntry("active", 3).containsEntry("borrowed", 5L);
            }

            Map<String, Object> values = values(registry);
            assertThat(values).containsEntry("active", 0).containsEntry("borrowed", 5L)
                .containsEntry("returned", 5L).containsEntry("reconnected", 0L)
                .containsEntry("releasedIdle", 0L).containsEntry("removeAbandoned", 0L);
            int size = (int) values.get("size");
            assertThat(values.get("idle")).isEqualTo(size);
            assertThat((long) values.get("created")).isGreaterThan(3L);
            assertThat((long) values.get("released")).isPositive()
                .isEqualTo((long) values.get("created") - size);
        } finally {
            pool.stop();
        }
    }

    @Test
    void theFactorysSettingRegistersThemWhileThePoolRuns() throws Exception {
        MetricRegistry registry = new MetricRegistry();
        HikariDataSourceFactory hikari = new HikariDataSourceFactory();
        hikari.setUrl("jdbc:h2:mem:hikari-setting;DB_CLOSE_DELAY=-1");
        hikari.setUser("sa");
        OperationsExtension operations = new OperationsExtension();
        operations.setTomcatMetricNames(true);
        hikari.setExtensions(List.of(operations));

        for (int round = 0; round < 2; round++) {
            ManagedDataSource pool = hikari.build(registry, POOL);
            assertThat(tomcatGauges(registry)).as("nothing before the pool starts").isEmpty();
            try (Connection connection = pool.getConnection()) {
                assertThat(tomcatGauges(registry)).hasSize(11);
                assertThat(values(registry)).containsEntry("active", 1);
            } finally {
                pool.stop();
            }
            assertThat(tomcatGauges(registry)).as("removed on stop").isEmpty();
        }

        HikariDataSourceFactory plain = new HikariDataSourceFactory();
        plain.setUrl("jdbc:h2:mem:hikari-plain;DB_CLOSE_DELAY=-1");
        plain.setUser("sa");
        for (List<PoolExtension> extensions : List.<List<PoolExtension>>of(List.of(),
            List.of(new OperationsExtension()))) {
            plain.setExtensions(extensions);
            ManagedDataSource pool = plain.build(registry, "plain");
            try (Connection connection = pool.getConnection()) {
                assertThat(tomcatGauges(registry)).as("off by default, %s", extensions).isEmpty();
                assertThat(registry.getNames()).contains("plain.pool.Wait");
            } finally {
                pool.stop();
            }
        }
    }

    /**
     * A fixed pool of 8, as a user saw it with {@code created} 7 beside {@code size} 8: HikariCP 7.1 opens its first
     * connection before its metrics tracker is attached, so {@code ConnectionCreation} alone misses it.
     */
    @Test
    void aFullFixedPoolCountsEveryConnectionItCreated() throws Exception {
        MetricRegistry registry = new MetricRegistry();
        HikariDataSourceFactory hikari = new HikariDataSourceFactory();
        hikari.setUrl("jdbc:h2:mem:hikari-fixed;DB_CLOSE_DELAY=-1");
        hikari.setUser("sa");
        hikari.setMaxSize(8);
        hikari.setMinSize(8);
        OperationsExtension operations = new OperationsExtension();
        operations.setTomcatMetricNames(true);
        operations.setSizingLog(false);
        hikari.setExtensions(List.of(operations));
        ManagedDataSource pool = hikari.build(registry, POOL);
        pool.start();
        try {
            HikariDataSource running = pool.unwrap(HikariDataSource.class);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (running.getHikariPoolMXBean().getTotalConnections() < 8 && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(20);
            }
            Map<String, Object> values = values(registry);

            assertThat(values).containsEntry("size", 8).containsEntry("idle", 8).containsEntry("active", 0)
                .containsEntry("created", 8L).containsEntry("released", 0L);
            assertThat(registry.histogram(POOL + ".pool.ConnectionCreation").getCount())
                .as("HikariCP's own count, without its first connection").isEqualTo(7);
        } finally {
            pool.stop();
        }
    }

    /**
     * Borrowers, returns and evictions while the gauges are read round after round: in every round tomcat-jdbc's
     * relations hold ({@code active + idle <= size <= created}, {@code released = created - size},
     * {@code borrowed >= returned + active}) and the counts never go down.
     */
    @Test
    void eachRoundOfReadingsAgreesUnderLoad() throws Exception {
        MetricRegistry registry = new MetricRegistry();
        HikariDataSourceFactory hikari = new HikariDataSourceFactory();
        hikari.setUrl("jdbc:h2:mem:hikari-load;DB_CLOSE_DELAY=-1");
        hikari.setUser("sa");
        hikari.setMaxSize(4);
        hikari.setMinSize(2);
        ManagedDataSource pool = hikari.build(registry, POOL);
        pool.start();
        ExecutorService borrowers = Executors.newFixedThreadPool(6);
        AtomicBoolean running = new AtomicBoolean(true);
        try {
            HikariDataSource hikariPool = pool.unwrap(HikariDataSource.class);
            TomcatMetricNames.register(registry, POOL, hikariPool.getHikariPoolMXBean());
            List<Future<?>> work = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                int borrower = i;
                work.add(borrowers.submit(() -> {
                    for (int round = 0; running.get(); round++) {
                        try (Connection connection = pool.getConnection()) {
                            if (borrower == 0 && round % 50 == 0) {
                                hikariPool.getHikariPoolMXBean().softEvictConnections();
                            }
                        }
                    }
                    return null;
                }));
            }
            Map<String, Object> previous = values(registry);
            for (int round = 0; round < 300; round++) {
                Map<String, Object> values = values(registry);
                int active = (int) values.get("active");
                int idle = (int) values.get("idle");
                int size = (int) values.get("size");
                long created = (long) values.get("created");
                assertThat(active + idle).as("active + idle <= size in %s", values).isLessThanOrEqualTo(size);
                assertThat(created).as("size <= created in %s", values).isGreaterThanOrEqualTo(size);
                assertThat((long) values.get("released")).as("released in %s", values).isEqualTo(created - size);
                assertThat((long) values.get("borrowed")).as("borrowed in %s", values)
                    .isGreaterThanOrEqualTo((long) values.get("returned") + active);
                for (String count : List.of("created", "borrowed", "returned")) {
                    assertThat((long) values.get(count)).as("%s after %s", values, previous)
                        .isGreaterThanOrEqualTo((long) previous.get(count));
                }
                previous = values;
                TimeUnit.MILLISECONDS.sleep(2);
            }
            assertThat((long) previous.get("returned")).as("the borrowers ran").isPositive();
            assertThat((long) previous.get("released")).as("the evictions closed connections").isPositive();
            running.set(false);
            for (Future<?> borrower : work) {
                borrower.get(10, TimeUnit.SECONDS);
            }
        } finally {
            running.set(false);
            borrowers.shutdownNow();
            pool.stop();
        }
    }

    private static Map<String, Object> values(MetricRegistry registry) {
        Map<String, Object> values = new TreeMap<>();
        String prefix = TomcatMetricNames.PREFIX + "." + POOL + ".";
        registry.getGauges().forEach((name, gauge) -> {
            if (name.startsWith(prefix)) {
                values.put(name.substring(prefix.length()), ((Gauge<?>) gauge).getValue());
            }
        });
        return values;
    }
}
