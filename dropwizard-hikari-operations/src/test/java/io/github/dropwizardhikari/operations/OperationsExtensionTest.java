package io.github.dropwizardhikari.operations;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.util.Credentials;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.servlets.tasks.TaskServlet;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.PoolHooks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The extension inside a real Dropwizard {@link Environment}: what it adds, only when named. */
class OperationsExtensionTest {
    static class AppConfiguration extends Configuration {
        HikariDataSourceFactory first = new HikariDataSourceFactory();
        HikariDataSourceFactory second = new HikariDataSourceFactory();
    }

    static class FirstBundle extends HikariBundle<AppConfiguration> {
        @Override
        public HikariDataSourceFactory getDataSourceFactory(AppConfiguration configuration) {
            return configuration.first;
        }
    }

    static class SecondBundle extends HikariBundle<AppConfiguration> {
        @Override
        public HikariDataSourceFactory getDataSourceFactory(AppConfiguration configuration) {
            return configuration.second;
        }

        @Override
        protected String name() {
            return "second";
        }
    }

    private final Environment environment = new Environment("operations-test");
    private final List<ManagedHikariDataSource> built = new ArrayList<>();

    @AfterEach
    void stopAll() {
        built.forEach(ManagedHikariDataSource::stop);
    }

    private static HikariDataSourceFactory block(String database, PoolExtension... extensions) {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1");
        factory.setUser("sa");
        factory.setMaxSize(2);
        factory.setExtensions(List.of(extensions));
        return factory;
    }

    private ManagedHikariDataSource dataSource(HikariBundle<AppConfiguration> bundle) {
        ManagedHikariDataSource dataSource = (ManagedHikariDataSource) bundle.getDataSource();
        built.add(dataSource);
        return dataSource;
    }

    private long taskFilters() {
        return Arrays.stream(environment.getAdminContext().getServletHandler().getFilters())
            .filter(filter -> filter.getName().equals(PoolTask.FILTER_NAME)).count();
    }

    @Test
    void withoutTheExtensionNamedNothingIsAdded() throws Exception {
        AppConfiguration configuration = new AppConfiguration();
        configuration.first = block("not-named");
        FirstBundle bundle = new FirstBundle();
        bundle.run(configuration, environment);
        dataSource(bundle).getConnection().close();

        assertThat(taskFilters()).isZero();
        assertThat(environment.metrics().getNames()).noneMatch(name -> name.startsWith(TomcatMetricNames.PREFIX));
    }

    @Test
    void namedItAddsTheTasks() {
        AppConfiguration configuration = new AppConfiguration();
        configuration.first = block("named", new OperationsExtension());
        new FirstBundle().run(configuration, environment);

        assertThat(taskFilters()).isEqualTo(1);
    }

    @Test
    void adminTasksFalseLeavesThePoolTasksOut() throws Exception {
        OperationsExtension operations = new OperationsExtension();
        operations.setAdminTasks(false);
        AppConfiguration configuration = new AppConfiguration();
        configuration.first = block("no-tasks", operations);
        FirstBundle bundle = new FirstBundle();
        bundle.run(configuration, environment);

        try (Connection connection = dataSource(bundle).getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }
        assertThat(taskFilters()).isZero();
    }

    /**
     * Why the blocks share one set of tasks: Dropwizard 5's task servlet, to which {@code admin().addTask} hands each
     * task, keeps one task per name, and a second task of the name replaces the first without a word; tasks
     * registered per block would reach the last block's pools only.
     */
    @Test
    void dropwizardKeepsOnlyTheLastTaskOfAName() {
        TaskServlet servlet = new TaskServlet(new MetricRegistry());
        StatusTask second = new StatusTask(List::of);
        servlet.add(new StatusTask(List::of));
        servlet.add(second);

        assertThat(servlet.getTasks()).singleElement().isSameAs(second);
    }

    /** Each block's pools, asked through the one set of tasks the first block registered. */
    @Test
    void twoBlocksNamingTheExtensionShareOneSetOfTasks() throws Exception {
        AppConfiguration configuration = new AppConfiguration();
        configuration.first = block("two-blocks-first", new OperationsExtension());
        configuration.second = block("two-blocks-second", new OperationsExtension());
        FirstBundle first = new FirstBundle();
        SecondBundle second = new SecondBundle();
        first.run(configuration, environment);
        second.run(configuration, environment);
        ManagedHikariDataSource firstPool = dataSource(first);
        ManagedHikariDataSource secondPool = dataSource(second);

        assertThat(taskFilters()).isEqualTo(1);
        PoolTask.Blocks blocks = (PoolTask.Blocks) environment.getAdminContext()
            .getAttribute(PoolTask.Blocks.class.getName());
        assertThat(blocks.pools()).containsExactly(firstPool, secondPool);
    }

    /**
     * A pool held by one borrower while another waits and times out: with every operation on (and the sizing
     * log's own borrow among them), the figures users alert on still say what happened.
     */
    @Test
    void waitPendingFailedBorrowsAndHealthChecksStayTrue() throws Exception {
        OperationsExtension operations = new OperationsExtension();
        operations.setTomcatMetricNames(true);
        AppConfiguration configuration = new AppConfiguration();
        configuration.first = block("figures", operations);
        configuration.first.setMaxSize(1);
        configuration.first.setMaxWaitForConnection(Duration.seconds(3));
        FirstBundle bundle = new FirstBundle();
        bundle.run(configuration, environment);
        ManagedHikariDataSource dataSource = dataSource(bundle);
        MetricRegistry metrics = environment.metrics();

        CompletableFuture<Boolean> timedOut;
        try (Connection held = dataSource.getConnection()) {
            timedOut = CompletableFuture.supplyAsync(() -> {
                try (Connection connection = dataSource.getConnection()) {
                    return false;
                } catch (SQLException e) {
                    return true;
                }
            });
            // HikariCP refreshes its gauges at most once a second
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (!Integer.valueOf(1).equals(gauge(metrics, "hikari.pool.PendingConnections"))
                && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(20);
            }
            assertThat(gauge(metrics, "hikari.pool.PendingConnections")).isEqualTo(1);
            assertThat(gauge(metrics, TomcatMetricNames.PREFIX + ".hikari.waiting")).isEqualTo(1);
            assertThat(timedOut.get(10, TimeUnit.SECONDS)).as("the waiting borrower timed out").isTrue();
        }
        assertThat(metrics.getMeters().get("hikari.pool.ConnectionTimeoutRate").getCount()).isEqualTo(1);
        // HikariCP 7.1 times a borrow that timed out too: both borrows are in Wait, the failed one with its 3 s
        Timer wait = metrics.getTimers().get("hikari.pool.Wait");
        assertThat(wait.getCount()).isEqualTo(2);
        assertThat(TimeUnit.NANOSECONDS.toMillis(wait.getSnapshot().getMax())).as("longest wait in Wait, ms (the "
            + "borrow's timeout: 3,000 ms)").isGreaterThanOrEqualTo(2_900);
        // as tomcat-jdbc's borrowedCount: the borrows that got a connection (the timed-out one is in
        // ConnectionTimeoutRate), so that borrowed - returned = active
        assertThat(gauge(metrics, TomcatMetricNames.PREFIX + ".hikari.borrowed")).isEqualTo(1L);
        assertThat(gauge(metrics, TomcatMetricNames.PREFIX + ".hikari.returned")).isEqualTo(1L);
        assertThat(environment.healthChecks().runHealthCheck("hikari.pool.ConnectivityCheck").isHealthy()).isTrue();
    }

    private static Object gauge(MetricRegistry metrics, String name) {
        Gauge<?> gauge = metrics.getGauges().get(name);
        return gauge == null ? null : gauge.getValue();
    }

    /** Sets a credentials provider whose {@code toString} would print its secret. */
    static final class LeakyCredentials implements PoolExtension {
        @Override
        public PoolHooks attach(HikariConfig config, MetricRegistry metrics) {
            config.setCredentialsProvider(new HikariCredentialsProvider() {
                @Override
                public Credentials getCredentials() {
                    return Credentials.of("sa", "");
                }

                @Override
                public String toString() {
                    return "provider holding s3cret-t0ken";
                }
            });
            return PoolHooks.NONE;
        }
    }

    @Test
    void theStatusTaskPrintsACredentialsProvidersClassOnly() throws Exception {
        ManagedHikariDataSource pool = (ManagedHikariDataSource) block("credentials", new OperationsExtension(),
            new LeakyCredentials()).build(new MetricRegistry(), "credentials");
        built.add(pool);
        pool.start();
        StringWriter output = new StringWriter();

        new StatusTask(() -> List.of(pool)).check(Map.of()).run(new PrintWriter(output, true));

        assertThat(output.toString()).contains("credentials: " + OperationsExtensionTest.class.getName() + "$")
            .doesNotContain("s3cret");
    }
}
