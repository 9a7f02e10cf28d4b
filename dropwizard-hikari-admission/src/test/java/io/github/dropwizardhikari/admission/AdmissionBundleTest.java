package io.github.dropwizardhikari.admission;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.PoolHooks;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The extension in a real Dropwizard {@link Environment}: what it adds to Jetty, sized from which pools, and when. */
class AdmissionBundleTest {
    static class AppConfiguration extends Configuration {
        HikariDataSourceFactory hikari = new HikariDataSourceFactory();
    }

    static class AppBundle extends HikariBundle<AppConfiguration> {
        @Override
        public HikariDataSourceFactory getDataSourceFactory(AppConfiguration configuration) {
            return configuration.hikari;
        }
    }

    private final Environment environment = new Environment("admission-test");
    private final List<ManagedDataSource> pools = new ArrayList<>();
    private final Server server = new Server();

    @AfterEach
    void stopEverything() throws Exception {
        server.stop();
        for (ManagedDataSource pool : pools) {
            pool.stop();
        }
    }

    private AppConfiguration configuration(String database, AdmissionExtension... extensions) {
        AppConfiguration configuration = new AppConfiguration();
        configuration.hikari.setUrl("jdbc:h2:mem:" + database);
        configuration.hikari.setUser("sa");
        configuration.hikari.setMaxSize(2);
        configuration.hikari.setExtensions(List.of(extensions));
        return configuration;
    }

    private ManagedDataSource build(AppConfiguration configuration, String name) {
        ManagedDataSource pool = configuration.hikari.build(environment.metrics(), name);
        pools.add(pool);
        return pool;
    }

    private PoolAdmissionHandler admission() {
        return environment.getApplicationContext().getDescendant(PoolAdmissionHandler.class);
    }

    /** Starts the application context as the server would, after the application's run built its pools. */
    private void startServer() throws Exception {
        server.setHandler(environment.getApplicationContext());
        server.start();
    }

    @Test
    void withoutTheExtensionNamedTheBundleNeverTouchesJetty() throws Exception {
        AppConfiguration configuration = configuration("no-jetty");
        AppBundle bundle = new AppBundle();
        bundle.run(configuration, environment);
        bundle.getDataSource().getConnection().close();
        startServer();

        assertThat(admission()).isNull();
        assertThat(environment.getApplicationContext().getDescendants(QoSHandler.class)).isEmpty();
        assertThat(environment.metrics().getNames()).noneMatch(name -> name.contains(".admission."));
    }

    @Test
    void namedItIsSizedToThePoolWithItsDefaultsAndMetrics() throws Exception {
        AppConfiguration configuration = configuration("admission-defaults", new AdmissionExtension());
        configuration.hikari.setMaxSize(10);
        new AppBundle().run(configuration, environment);
        build(configuration, "defaults");

        startServer();

        PoolAdmissionHandler handler = admission();
        assertThat(handler).isNotNull();
        assertThat(handler.getMaxRequestCount()).isEqualTo(10);
        assertThat(handler.getMaxSuspend()).isEqualTo(java.time.Duration.ofSeconds(30));
        assertThat(handler.getMaxSuspendedRequestCount()).isEqualTo(1024);
        assertThat(environment.metrics().getNames()).contains("defaults.admission.admitted",
            "defaults.admission.waiting", "defaults.admission.wait", "defaults.admission.rejected",
            "defaults.admission.inside");

        server.stop();
        assertThat(environment.metrics().getNames()).noneMatch(name -> name.contains(".admission."));
    }

    @Test
    void aPoolBuiltAfterTheBundleRanSetsTheLimitAndTheWait() throws Exception {
        AppConfiguration configuration = configuration("admission-bundle", new AdmissionExtension());
        configuration.hikari.setMaxWaitForConnection(Duration.seconds(3));
        AppBundle bundle = new AppBundle();
        bundle.run(configuration, environment);
        bundle.getDataSource();

        startServer();

        assertThat(admission().getMaxRequestCount()).isEqualTo(2);
        assertThat(admission().getMaxSuspend()).isEqualTo(java.time.Duration.ofSeconds(3));
        assertThat(environment.metrics().getNames()).contains("hikari.admission.admitted");
    }

    @Test
    void twoPoolsOfTheBlockAdmitTheirSummedSize() throws Exception {
        AppConfiguration configuration = configuration("admission-two", new AdmissionExtension());
        new AppBundle().run(configuration, environment);
        build(configuration, "jdbi");
        build(configuration, "hibernate");

        startServer();

        assertThat(admission().getMaxRequestCount()).isEqualTo(4);
        assertThat(environment.metrics().getNames()).contains("jdbi.admission.admitted");
    }

    @Test
    void settingsGivenWinOverThePools() throws Exception {
        AdmissionExtension extension = new AdmissionExtension();
        extension.setMaxConcurrentRequests(7);
        extension.setMaxWait(Duration.milliseconds(750));
        extension.setMaxWaitingRequests(5);
        AppConfiguration configuration = configuration("admission-given", extension);
        new AppBundle().run(configuration, environment);
        build(configuration, "given");

        startServer();

        assertThat(admission().getMaxRequestCount()).isEqualTo(7);
        assertThat(admission().getMaxSuspend()).isEqualTo(java.time.Duration.ofMillis(750));
        assertThat(admission().getMaxSuspendedRequestCount()).isEqualTo(5);
    }

    @Test
    void noPoolBuiltBeforeTheServerStartsIsAClearError() {
        AppConfiguration configuration = configuration("admission-none", new AdmissionExtension());
        new AppBundle().run(configuration, environment);
        server.setHandler(environment.getApplicationContext());

        assertThatThrownBy(server::start)
            .hasStackTraceContaining("none was built before the server started")
            .hasStackTraceContaining("set maxConcurrentRequests and maxWait of the admission extension");
    }

    /**
     * Admission never acts on the pool: its hooks are HikariCP's own, and a borrow that times out is counted, waited
     * for and reported as HikariCP reports it.
     */
    @Test
    void thePoolsFiguresStayHikariCPsOwn() throws Exception {
        AdmissionExtension extension = new AdmissionExtension();
        HikariConfig config = new HikariConfig();
        assertThat(extension.attach(config, new MetricRegistry())).isSameAs(PoolHooks.NONE);
        assertThat(config.getMetricsTrackerFactory()).isNull();

        AppConfiguration configuration = configuration("admission-figures", extension);
        configuration.hikari.setMaxWaitForConnection(Duration.milliseconds(250));
        AppBundle bundle = new AppBundle();
        bundle.run(configuration, environment);
        ManagedDataSource pool = bundle.getDataSource();
        startServer();
        pool.start();
        MetricRegistry metrics = environment.metrics();

        try (Connection first = pool.getConnection(); Connection second = pool.getConnection()) {
            assertThatThrownBy(pool::getConnection).isInstanceOf(SQLTransientConnectionException.class);
        }

        assertThat(metrics.getMeters().get("hikari.pool.ConnectionTimeoutRate").getCount()).isEqualTo(1);
        assertThat(metrics.getTimers().get("hikari.pool.Wait").getCount()).isEqualTo(3);
        assertThat(metrics.getGauges().get("hikari.pool.PendingConnections").getValue()).isEqualTo(0);
        assertThat(environment.healthChecks().runHealthCheck("hikari.pool.ConnectivityCheck").isHealthy()).isTrue();
    }
}
