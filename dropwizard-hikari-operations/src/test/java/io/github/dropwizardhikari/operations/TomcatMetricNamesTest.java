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
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

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
