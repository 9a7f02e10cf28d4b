package io.github.dropwizardhikari;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

class ManagedHikariDataSourceTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, an unreachable database, connections borrowed at stop."
            + " WARN and ERROR lines in this log are expected.");
    }

    private final MetricRegistry metrics = new MetricRegistry();
    private final HealthCheckRegistry healthChecks = new HealthCheckRegistry();
    private final List<ManagedDataSource> built = new ArrayList<>();

    @AfterEach
    void stopAll() throws Exception {
        for (ManagedDataSource dataSource : built) {
            dataSource.stop();
        }
    }

    private ManagedHikariDataSource build(String name, int minSize) {
        return build(name, minSize, Duration.milliseconds(500), Duration.milliseconds(250));
    }

    private ManagedHikariDataSource build(String name, int minSize, Duration maxWait, Duration validationTimeout) {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl(CountingDriver.url(name));
        factory.setUser("sa");
        factory.setPassword("pool-secret");
        factory.setMinSize(minSize);
        factory.setMaxSize(4);
        factory.setMaxWaitForConnection(maxWait);
        factory.setValidationQueryTimeout(validationTimeout);
        BundleInitialization.bind(factory, metrics, healthChecks);
        ManagedHikariDataSource dataSource = (ManagedHikariDataSource) factory.build(metrics, name);
        built.add(dataSource);
        return dataSource;
    }

    @Test
    void buildOpensNoConnection() throws Exception {
        int before = CountingDriver.opened();

        ManagedHikariDataSource dataSource = build("lazy", 2);

        assertThat(CountingDriver.opened()).isEqualTo(before);
        assertThat(dataSource.isRunning()).isFalse();
        assertThat(metrics.getNames()).noneMatch(name -> name.startsWith("lazy."));
        assertThat(healthChecks.getNames()).isEmpty();
    }

    @Test
    void firstConnectionStartsThePoolBeforeStart() throws Exception {
        ManagedHikariDataSource dataSource = build("before-start", 1);

        try (Connection connection = dataSource.getConnection();
             Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT 41 + 1")) {
            assertThat(result.next()).isTrue();
            assertThat(result.getInt(1)).isEqualTo(42);
        }

        assertThat(dataSource.isRunning()).isTrue();
        assertThat(CountingDriver.opened()).isPositive();
        // start() after use is harmless: the pool is already running
        dataSource.start();
        assertThat(dataSource.isRunning()).isTrue();
    }

    @Test
    void startOpensThePool() throws Exception {
        ManagedHikariDataSource dataSource = build("started", 1);
        int before = CountingDriver.opened();

        dataSource.start();

        assertThat(dataSource.isRunning()).isTrue();
        assertThat(CountingDriver.opened()).isGreaterThan(before);
        assertThat(metrics.getNames()).contains("started.pool.ActiveConnections");
        assertThat(healthChecks.getNames()).containsExactly("started.pool.ConnectivityCheck");
        assertThat(healthChecks.runHealthCheck("started.pool.ConnectivityCheck").isHealthy()).isTrue();
    }

    @Test
    void stopIsSafeWithoutStartAndTwice() throws Exception {
        ManagedHikariDataSource neverStarted = build("never-started", 1);
        int before = CountingDriver.opened();

        neverStarted.stop();
        neverStarted.stop();

        assertThat(CountingDriver.opened()).isEqualTo(before);
        assertThat(neverStarted.isClosed()).isTrue();

        ManagedHikariDataSource started = build("stopped-twice", 1);
        started.start();
        started.stop();
        started.stop();
        assertThat(started.isRunning()).isFalse();
    }

    @Test
    void aStoppedPoolRefusesConnectionsWithAClearError() throws Exception {
        ManagedHikariDataSource dataSource = build("refuses", 1);
        dataSource.start();
        dataSource.stop();

        assertThatThrownBy(dataSource::getConnection)
            .isInstanceOf(SQLException.class)
            .hasMessage("pool refuses has been closed");
    }

    @Test
    void stopRemovesMetricsAndHealthChecksSoTheNameCanBeBuiltAgain() throws Exception {
        ManagedHikariDataSource first = build("rebuilt", 1);
        first.start();
        // HikariCP's ten
        assertThat(metrics.getNames()).filteredOn(name -> name.startsWith("rebuilt.pool.")).hasSize(10)
            .contains("rebuilt.pool.Wait", "rebuilt.pool.PendingConnections");

        first.stop();
        assertThat(metrics.getNames()).noneMatch(name -> name.startsWith("rebuilt."));
        assertThat(healthChecks.getNames()).isEmpty();

        ManagedHikariDataSource second = build("rebuilt", 1);
        try (Connection connection = second.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }
        // HikariCP's ten
        assertThat(metrics.getNames()).filteredOn(name -> name.startsWith("rebuilt.pool.")).hasSize(10)
            .contains("rebuilt.pool.Wait", "rebuilt.pool.PendingConnections");
        assertThat(healthChecks.getNames()).containsExactly("rebuilt.pool.ConnectivityCheck");
    }

    @Test
    void aSecondRunningPoolOfTheSameNameIsRefusedBeforeItConnects() throws Exception {
        build("twin", 1).start();
        ManagedHikariDataSource twin = build("twin", 1);
        int before = CountingDriver.opened();

        assertThatThrownBy(twin::start)
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("a pool named 'twin' is already registered");
        assertThat(CountingDriver.opened()).isEqualTo(before);
    }

    @Test
    void healthCheckIsUnhealthyAtOnceForAClosedPool() throws Exception {
        // HikariCP's check on a closed pool would wait its whole timeout: 30 s here, so "at once" has a wide margin
        ManagedHikariDataSource dataSource = build("closing", 1, Duration.seconds(30), Duration.seconds(30));
        dataSource.start();
        HealthCheck check = healthChecks.getHealthCheck("closing.pool.ConnectivityCheck");
        assertThat(check.execute().isHealthy()).isTrue();

        dataSource.stop();
        long started = System.nanoTime();
        HealthCheck.Result result = check.execute();

        assertThat(result.isHealthy()).isFalse();
        assertThat(result.getMessage()).isEqualTo("pool closing is closed");
        long answeredMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(answeredMillis).as("a closed pool's check answered in %d ms (its timeout: 30,000 ms)", answeredMillis)
            .isLessThan(3_000);
    }

    @Test
    void connection99PercentCheckIsRegisteredWhenConfigured() throws Exception {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl(CountingDriver.url("percentile"));
        factory.setMaxSize(2);
        factory.setHealthCheckProperties(java.util.Map.of("expected99thPercentileMs", "1000"));
        BundleInitialization.bind(factory, metrics, healthChecks);
        ManagedDataSource dataSource = factory.build(metrics, "percentile");
        built.add(dataSource);

        dataSource.start();

        assertThat(healthChecks.getNames())
            .containsExactlyInAnyOrder("percentile.pool.ConnectivityCheck", "percentile.pool.Connection99Percent");
        assertThat(healthChecks.runHealthCheck("percentile.pool.Connection99Percent").isHealthy()).isTrue();
    }

    @Test
    void exhaustedPoolTimesOutOnTimeWithAClearError() throws Exception {
        // 5 s: a loaded machine may be a second or two late, a second wait would be 5 s late
        ManagedHikariDataSource dataSource = build("exhausted", 1, Duration.seconds(5), Duration.milliseconds(250));
        List<Connection> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            held.add(dataSource.getConnection());
        }
        long started = System.nanoTime();
        try {
            Throwable timedOut = catchThrowable(dataSource::getConnection);
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(timedOut).isInstanceOf(SQLException.class).hasMessageContaining("request timed out after");
            // the message carries HikariCP's own figure
            assertThat(waitedMillis).as("the borrow gave up after %d ms (its timeout: 5,000 ms): %s", waitedMillis,
                timedOut.getMessage()).isBetween(5_000L, 9_000L);
        } finally {
            for (Connection connection : held) {
                connection.close();
            }
        }
    }

    @Test
    void anUnreachableDatabaseFailsTheStartWithItsCause() throws Exception {
        try (RefusedPort down = RefusedPort.take()) {
            HikariDataSourceFactory factory = new HikariDataSourceFactory();
            factory.setUrl(down.h2Url());
            factory.setPassword("unreachable-secret");
            factory.setMaxWaitForConnection(Duration.milliseconds(500));
            factory.setValidationQueryTimeout(Duration.milliseconds(250));
            ManagedDataSource dataSource = factory.build(metrics, "unreachable");
            built.add(dataSource);

            assertThatThrownBy(dataSource::getConnection)
                .isInstanceOf(SQLException.class)
                .hasMessageStartingWith("pool unreachable could not start: ")
                .satisfies(e -> assertThat(e.toString()).doesNotContain("unreachable-secret"));
            assertThat(metrics.getNames()).noneMatch(name -> name.startsWith("unreachable."));
        }
    }

    @Test
    void stopWaitsForBorrowedConnectionsSoWorkInFlightCommits() throws Exception {
        ManagedHikariDataSource dataSource = build("draining", 1);
        try (Connection setup = dataSource.getConnection(); Statement statement = setup.createStatement()) {
            statement.execute("CREATE TABLE drained (id INT PRIMARY KEY)");
        }
        Connection inFlight = dataSource.getConnection();
        inFlight.setAutoCommit(false);
        try (Statement statement = inFlight.createStatement()) {
            statement.executeUpdate("INSERT INTO drained VALUES (1)");
        }

        CompletableFuture<Void> stopping = CompletableFuture.runAsync(dataSource::stop);
        // the stop is waiting for the borrowed connection, and new borrowers are already refused
        assertThatThrownBy(() -> stopping.get(300, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
        long failedBefore = metrics.meter("draining.pool.ConnectionTimeoutRate").getCount();
        assertThatThrownBy(dataSource::getConnection).hasMessage("pool draining has been closed");
        // the refusal is a failed borrow, counted where every failed borrow is
        assertThat(metrics.getMeters().get("draining.pool.ConnectionTimeoutRate").getCount())
            .isEqualTo(failedBefore + 1);

        inFlight.commit();
        inFlight.close();
        stopping.get(5, TimeUnit.SECONDS);

        try (Connection direct = DriverManager.getConnection(CountingDriver.url("draining"), "sa",
            "pool-secret");
             Statement statement = direct.createStatement();
             ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM drained")) {
            assertThat(result.next()).isTrue();
            assertThat(result.getInt(1)).isEqualTo(1);
        }
    }

    @Test
    void stopGivesUpOnAnUnreturnedConnectionAfterTheConnectionTimeout() throws Exception {
        ManagedHikariDataSource dataSource = build("abandoned", 1);
        Connection neverReturned = dataSource.getConnection();
        Logger logger = (Logger) LoggerFactory.getLogger(ManagedHikariDataSource.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);

        long started = System.nanoTime();
        try {
            dataSource.stop();
        } finally {
            logger.detachAppender(appender);
            neverReturned.close();
        }
        long stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertThat(stopMillis).as("the stop took %d ms (its wait for borrowed connections: 500 ms)", stopMillis)
            .isBetween(500L, 3_000L);
        assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage)
            .containsExactly("Pool abandoned: 1 connection(s) still borrowed after 500 ms; closing them");
    }

    @Test
    void unwrapsToItselfAndToHikari() throws Exception {
        ManagedHikariDataSource dataSource = build("unwrapped", 1);

        assertThat(dataSource.unwrap(ManagedHikariDataSource.class)).isSameAs(dataSource);
        assertThat(dataSource.isRunning()).isFalse();
        HikariDataSource hikari = dataSource.unwrap(HikariDataSource.class);
        assertThat(hikari.getHikariPoolMXBean().getTotalConnections()).isGreaterThanOrEqualTo(0);
        assertThat(dataSource.toString()).isEqualTo("ManagedHikariDataSource{pool=unwrapped, running}");
    }
}
