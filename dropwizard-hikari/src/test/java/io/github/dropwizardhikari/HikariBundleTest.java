package io.github.dropwizardhikari;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.ConfiguredBundle;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.jdbi3.JdbiFactory;
import io.dropwizard.lifecycle.Managed;
import io.dropwizard.lifecycle.setup.LifecycleEnvironment;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.List;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The bundle and the pool inside a real Dropwizard {@link Environment}, built by Dropwizard's own JdbiFactory. */
class HikariBundleTest {
    static class AppConfiguration extends Configuration {
        HikariDataSourceFactory hikari = new HikariDataSourceFactory();
    }

    static class AppBundle extends HikariBundle<AppConfiguration> {
        @Override
        public HikariDataSourceFactory getDataSourceFactory(AppConfiguration configuration) {
            return configuration.hikari;
        }
    }

    private static final List<String> POOL_METRICS = List.of("Wait", "Usage", "ConnectionCreation",
        "ConnectionTimeoutRate", "TotalConnections", "IdleConnections", "ActiveConnections", "PendingConnections",
        "MaxConnections", "MinConnections");

    private final Environment environment = new Environment("bundle-test");

    private AppConfiguration configuration(String database) {
        AppConfiguration configuration = new AppConfiguration();
        configuration.hikari.setUrl(CountingDriver.url(database));
        configuration.hikari.setUser("sa");
        configuration.hikari.setMaxSize(2);
        return configuration;
    }

    private static void startAll(LifecycleEnvironment lifecycle) throws Exception {
        for (var managed : lifecycle.getManagedObjects()) {
            managed.start();
        }
    }

    private static void stopAll(LifecycleEnvironment lifecycle) throws Exception {
        for (var managed : lifecycle.getManagedObjects()) {
            managed.stop();
        }
    }

    @Test
    void jdbiPoolGetsHikariMetricsAndHealthChecksAndLosesThemOnStop() throws Exception {
        AppConfiguration configuration = configuration("jdbi");
        new AppBundle().run(configuration, environment);

        Jdbi jdbi = new JdbiFactory().build(environment, configuration.hikari, "questions");
        startAll(environment.lifecycle());

        int seven = jdbi.withHandle(handle -> handle.createQuery("SELECT 7").mapTo(Integer.class).one());
        assertThat(seven).isEqualTo(7);
        assertThat(environment.metrics().getNames())
            .containsAll(POOL_METRICS.stream().map(metric -> "questions.pool." + metric).toList());
        assertThat(environment.healthChecks().getNames())
            .contains("questions", "questions.pool.ConnectivityCheck");
        assertThat(environment.healthChecks().runHealthCheck("questions.pool.ConnectivityCheck").isHealthy())
            .isTrue();
        assertThat(environment.healthChecks().runHealthCheck("questions").isHealthy()).isTrue();

        stopAll(environment.lifecycle());

        assertThat(environment.metrics().getNames()).noneMatch(name -> name.startsWith("questions.pool."));
        assertThat(environment.healthChecks().getNames()).doesNotContain("questions.pool.ConnectivityCheck");
    }

    @Test
    void gaugesMoveWhenAConnectionIsBorrowed() throws Exception {
        AppConfiguration configuration = configuration("gauges");
        AppBundle bundle = new AppBundle();
        bundle.run(configuration, environment);
        ManagedDataSource dataSource = bundle.getDataSource();
        MetricRegistry metrics = environment.metrics();

        try (Connection ignored = dataSource.getConnection()) {
            assertThat(metrics.getGauges().get("hikari.pool.ActiveConnections").getValue()).isEqualTo(1);
            assertThat(metrics.getGauges().get("hikari.pool.MaxConnections").getValue()).isEqualTo(2);
        }
        // HikariCP caches its gauges for a second; the usage histogram records each return at once
        assertThat(metrics.getHistograms().get("hikari.pool.Usage").getCount()).isPositive();
        assertThat(metrics.getTimers().get("hikari.pool.Wait").getCount()).isPositive();
    }

    @Test
    void getDataSourceBuildsOneManagedPool() throws Exception {
        AppConfiguration configuration = configuration("plain-jdbc");
        AppBundle bundle = new AppBundle();
        bundle.run(configuration, environment);

        ManagedDataSource dataSource = bundle.getDataSource();

        assertThat(bundle.getDataSource()).isSameAs(dataSource);
        assertThat(environment.lifecycle().getManagedObjects())
            .anySatisfy(managed -> assertThat(managed.toString()).contains("ManagedHikariDataSource{pool=hikari"));
        startAll(environment.lifecycle());
        assertThat(environment.healthChecks().getNames()).contains("hikari.pool.ConnectivityCheck");
        stopAll(environment.lifecycle());
        assertThat(environment.healthChecks().getNames()).doesNotContain("hikari.pool.ConnectivityCheck");
    }

    @Test
    void theBundleNeverTouchesJetty() throws Exception {
        AppConfiguration configuration = configuration("no-jetty");
        AppBundle bundle = new AppBundle();
        var handler = environment.getApplicationContext().getHandler();
        bundle.run(configuration, environment);
        bundle.getDataSource().getConnection().close();

        assertThat(environment.getApplicationContext().getDescendant(QoSHandler.class)).isNull();
        assertThat(environment.getApplicationContext().getHandler()).isSameAs(handler);
        assertThat(environment.metrics().getNames()).noneMatch(name -> name.contains(".admission."));
    }

    @Test
    void getDataSourceBeforeRunIsAClearError() {
        assertThatThrownBy(() -> new AppBundle().getDataSource())
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("once the bundle has run");
    }

    @Test
    void aBundleWithoutHikariConfigurationDoesNothing() {
        AppBundle bundle = new AppBundle() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(AppConfiguration configuration) {
                return null;
            }
        };
        bundle.run(new AppConfiguration(), environment);

        assertThat(environment.healthChecks().getNames()).noneMatch(name -> name.contains(".pool."));
        assertThatThrownBy(bundle::getDataSource)
            .isInstanceOf(IllegalStateException.class)
            .hasMessage("no HikariCP data source is configured");
    }

    private static Bootstrap<AppConfiguration> bootstrap() {
        return new Bootstrap<>(new Application<>() {
            @Override
            public void run(AppConfiguration configuration, Environment environment) {
                // not started: the test drives the phases itself
            }
        });
    }

    /** Built as Dropwizard's EnvironmentCommand builds it: from the bootstrap's registries. */
    private static Environment environment(Bootstrap<AppConfiguration> bootstrap, String name) {
        return new Environment(name, bootstrap.getObjectMapper(), bootstrap.getValidatorFactory(),
            bootstrap.getMetricRegistry(), bootstrap.getClassLoader(), bootstrap.getHealthCheckRegistry(),
            new AppConfiguration());
    }

    /** The open pools built from the configuration's block, which the extensions named in it see. */
    private static List<ManagedHikariDataSource> pools(AppConfiguration configuration) {
        return configuration.hikari.builtPools().running();
    }

    @Test
    void aPoolBuiltBeforeTheBundleRunsGetsHealthChecksToo() throws Exception {
        Bootstrap<AppConfiguration> bootstrap = bootstrap();
        AppBundle bundle = new AppBundle();
        bundle.initialize(bootstrap);
        Environment started = environment(bootstrap, "bundle-order");
        AppConfiguration configuration = configuration("bundle-order");

        // what a HibernateBundle added before HikariBundle does in its own run()
        ManagedDataSource early = configuration.hikari.build(started.metrics(), "early");
        started.lifecycle().manage(early);
        bundle.run(configuration, started);
        startAll(started.lifecycle());

        assertThat(started.healthChecks().getNames()).contains("early.pool.ConnectivityCheck");
        assertThat(started.healthChecks().runHealthCheck("early.pool.ConnectivityCheck").isHealthy()).isTrue();
        assertThat(pools(configuration)).containsExactly((ManagedHikariDataSource) early);

        stopAll(started.lifecycle());

        assertThat(started.healthChecks().getNames()).doesNotContain("early.pool.ConnectivityCheck");
        assertThat(pools(configuration)).isEmpty();
    }

    /**
     * What a {@code HibernateBundle} added before {@code HikariBundle} does in its {@code run()}: it builds its pool
     * and starts it (Hibernate opens a connection to read the database's metadata) before our bundle runs.
     */
    static class PoolStartingBundle implements ConfiguredBundle<AppConfiguration> {
        ManagedDataSource pool;

        @Override
        public void run(AppConfiguration configuration, Environment environment) throws Exception {
            pool = configuration.hikari.build(environment.metrics(), "hibernate");
            environment.lifecycle().manage(pool);
            pool.getConnection().close();
        }
    }

    @Test
    void aBundleAddedFirstThatStartsItsPoolInItsRunGetsHealthChecks() throws Exception {
        Bootstrap<AppConfiguration> bootstrap = bootstrap();
        PoolStartingBundle hibernate = new PoolStartingBundle();
        bootstrap.addBundle(hibernate);
        bootstrap.addBundle(new AppBundle());
        // as Application.run does right after initialize: a JMX reporter on the registry, which rejects any
        // metric that is not one of Metrics' five types
        bootstrap.registerMetrics();
        try {
            Environment started = environment(bootstrap, "hibernate-first");
            AppConfiguration configuration = configuration("hibernate-first");
            bootstrap.run(configuration, started);
            assertThat(((ManagedHikariDataSource) hibernate.pool).isRunning()).as("started before ours ran").isTrue();
            startAll(started.lifecycle());

            assertThat(started.healthChecks().getNames()).contains("hibernate.pool.ConnectivityCheck");
            assertThat(started.healthChecks().runHealthCheck("hibernate.pool.ConnectivityCheck").isHealthy())
                .isTrue();
            assertThat(pools(configuration)).hasSize(1);
            // nothing of the bundle's own hides in the application's registry: the pool's metrics only
            assertThat(started.metrics().getNames()).noneMatch(name -> name.contains("dropwizardhikari"));

            stopAll(started.lifecycle());

            assertThat(started.healthChecks().getNames()).doesNotContain("hibernate.pool.ConnectivityCheck");
            assertThat(pools(configuration)).isEmpty();
        } finally {
            requireNonNull(bootstrap.getJmxReporter()).stop();
        }
    }

    @Test
    void twoApplicationsInOneJvmSeeOnlyTheirOwnPools() throws Exception {
        Bootstrap<AppConfiguration> firstBootstrap = bootstrap();
        Bootstrap<AppConfiguration> secondBootstrap = bootstrap();
        firstBootstrap.addBundle(new AppBundle());
        secondBootstrap.addBundle(new AppBundle());
        Environment first = environment(firstBootstrap, "first");
        Environment second = environment(secondBootstrap, "second");
        AppConfiguration firstConfiguration = configuration("first-application");
        AppConfiguration secondConfiguration = configuration("second-application");
        firstBootstrap.run(firstConfiguration, first);
        secondBootstrap.run(secondConfiguration, second);

        ManagedDataSource orders = firstConfiguration.hikari.build(first.metrics(), "orders");
        ManagedDataSource billing = secondConfiguration.hikari.build(second.metrics(), "billing");
        orders.start();
        billing.start();
        try {
            assertThat(pools(firstConfiguration)).containsExactly((ManagedHikariDataSource) orders);
            assertThat(pools(secondConfiguration)).containsExactly((ManagedHikariDataSource) billing);
            assertThat(first.healthChecks().getNames())
                .contains("orders.pool.ConnectivityCheck").doesNotContain("billing.pool.ConnectivityCheck");
            assertThat(second.healthChecks().getNames())
                .contains("billing.pool.ConnectivityCheck").doesNotContain("orders.pool.ConnectivityCheck");

            orders.stop();

            assertThat(pools(firstConfiguration)).isEmpty();
            assertThat(pools(secondConfiguration)).containsExactly((ManagedHikariDataSource) billing);
            assertThat(second.healthChecks().getNames()).contains("billing.pool.ConnectivityCheck");
        } finally {
            orders.stop();
            billing.stop();
        }
    }

    @Test
    void aSecondBundleOnTheSameBlockSharesItsPools() throws Exception {
        Bootstrap<AppConfiguration> bootstrap = bootstrap();
        AppBundle one = new AppBundle();
        AppBundle two = new AppBundle() {
            @Override
            protected String name() {
                return "second";
            }
        };
        bootstrap.addBundle(one);
        bootstrap.addBundle(two);
        Environment started = environment(bootstrap, "two-bundles");
        AppConfiguration configuration = configuration("two-bundles");
        bootstrap.run(configuration, started);

        ManagedHikariDataSource first = (ManagedHikariDataSource) one.getDataSource();
        ManagedHikariDataSource second = (ManagedHikariDataSource) two.getDataSource();

        assertThat(started.metrics().getNames()).noneMatch(name -> name.contains("dropwizardhikari"));
        assertThat(pools(configuration)).containsExactly(first, second);
        first.start();
        second.start();
        assertThat(started.healthChecks().getNames())
            .contains("hikari.pool.ConnectivityCheck", "second.pool.ConnectivityCheck");
        first.stop();
        second.stop();
    }

    @Test
    void withoutTheBundleThePoolHasMetricsButNoHealthChecks() throws Exception {
        AppConfiguration configuration = configuration("no-bundle");

        ManagedDataSource dataSource = configuration.hikari.build(environment.metrics(), "unbundled");
        ((Managed) dataSource).start();

        assertThat(environment.metrics().getNames()).contains("unbundled.pool.Wait");
        assertThat(environment.healthChecks().getNames()).noneMatch(name -> name.contains(".pool."));
        dataSource.stop();
    }
}
