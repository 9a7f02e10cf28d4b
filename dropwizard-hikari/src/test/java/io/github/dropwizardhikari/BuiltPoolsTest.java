package io.github.dropwizardhikari;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.core.setup.Environment;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The factory is where the bundle and the pools built from it meet: the pools it lists are those built and not
 * stopped, and binding it to an application, before or after a pool started, puts every check in the application's
 * registry and runs each extension once.
 */
class BuiltPoolsTest {
    private final MetricRegistry metrics = new MetricRegistry();
    private final HealthCheckRegistry healthChecks = new HealthCheckRegistry();

    private static HikariDataSourceFactory factory(String name) {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:" + name);
        return factory;
    }

    @Test
    void thePoolsListedAreThoseBuiltAndNotStopped() {
        HikariDataSourceFactory factory = factory("listed");
        ManagedHikariDataSource first = (ManagedHikariDataSource) factory.build(metrics, "first");
        ManagedHikariDataSource second = (ManagedHikariDataSource) factory.build(metrics, "second");

        assertThat(factory.builtPools().running()).containsExactly(first, second);
        first.stop();
        assertThat(factory.builtPools().running()).containsExactly(second);
        second.stop();
        assertThat(factory.builtPools().running()).isEmpty();
    }

    @Test
    void aPoolStartedBeforeTheBundleRanGetsItsChecksWhenItRuns() throws Exception {
        HikariDataSourceFactory factory = factory("early");
        ManagedHikariDataSource early = (ManagedHikariDataSource) factory.build(metrics, "early");
        try {
            // as a HibernateBundle added before HikariBundle does: the pool starts in its run()
            early.start();
            assertThat(healthChecks.getNames()).isEmpty();

            BundleInitialization.bind(factory, metrics, healthChecks);
            assertThat(healthChecks.getNames()).containsExactly("early.pool.ConnectivityCheck");
            assertThat(healthChecks.runHealthCheck("early.pool.ConnectivityCheck").isHealthy()).isTrue();
        } finally {
            early.stop();
        }
        assertThat(healthChecks.getNames()).isEmpty();
    }

    @Test
    void eachExtensionRunsOnceForTheApplicationAndSeesThePoolsOfItsBlock() {
        List<Supplier<List<ManagedHikariDataSource>>> runs = new ArrayList<>();
        PoolExtension counting = new PoolExtension() {
            @Override
            public void run(Environment environment, Supplier<List<ManagedHikariDataSource>> pools) {
                runs.add(pools);
            }

            @Override
            public PoolHooks attach(HikariConfig config, MetricRegistry registry) {
                return PoolHooks.NONE;
            }
        };
        HikariDataSourceFactory factory = factory("runs");
        factory.setExtensions(List.of(counting));
        Environment environment = BundleInitialization.bind(factory, metrics, healthChecks);
        factory.bind(environment);
        ManagedHikariDataSource later = (ManagedHikariDataSource) factory.build(metrics, "later");

        assertThat(runs).hasSize(1);
        assertThat(runs.get(0).get()).containsExactly(later);
        later.stop();
        assertThat(runs.get(0).get()).isEmpty();
    }
}
