package io.github.dropwizardhikari;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connectivity check of a pool whose every connection is borrowed: healthy as soon as one comes back, without
 * queueing behind the borrowers for a connection of its own; unhealthy when none comes back within its timeout.
 */
class BusyPoolHealthTest {
    private static final String CHECK = "busy.pool.ConnectivityCheck";
    // the check's timeout when connections do come back: the wait it must not take
    private static final long LONG_CHECK_MILLIS = 20_000;

    private final MetricRegistry metrics = new MetricRegistry();
    private final HealthCheckRegistry healthChecks = new HealthCheckRegistry();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private ManagedHikariDataSource pool;

    private void start(int size, long checkTimeoutMillis) throws Exception {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:busy");
        factory.setMinSize(size);
        factory.setMaxSize(size);
        factory.setHealthCheckProperties(Map.of("connectivityCheckTimeoutMs", Long.toString(checkTimeoutMillis)));
        pool = (ManagedHikariDataSource) factory.build(metrics, "busy");
        BundleInitialization.bind(factory, metrics, healthChecks);
        pool.start();
    }

    @AfterEach
    void stop() throws Exception {
        threads.shutdownNow();
        if (pool != null) {
            pool.stop();
        }
    }

    @Test
    void aPoolWithAnIdleConnectionIsCheckedByBorrowingOne() throws Exception {
        start(2, LONG_CHECK_MILLIS);

        HealthCheck.Result result = healthChecks.runHealthCheck(CHECK);

        assertThat(result.isHealthy()).as("%s", result).isTrue();
        assertThat(result.getMessage()).as("HikariCP's own check answered").isNull();
    }

    @Test
    void aBusyPoolWhoseConnectionsComeBackIsHealthyAtTheFirstReturn() throws Exception {
        start(2, LONG_CHECK_MILLIS);
        Connection first = pool.getConnection();
        Connection second = pool.getConnection();
        // a borrower queued behind the two: the check must not wait behind it
        Future<?> queued = threads.submit(() -> {
            try (Connection ignored = pool.getConnection()) {
                return null;
            }
        });
        long asked = System.nanoTime();
        CompletableFuture<HealthCheck.Result> checked = CompletableFuture.supplyAsync(
            () -> healthChecks.runHealthCheck(CHECK), threads);
        Thread.sleep(200);
        assertThat(checked).as("the check answers only once a connection comes back").isNotDone();
        first.close();

        HealthCheck.Result result = checked.get(LONG_CHECK_MILLIS * 2, TimeUnit.MILLISECONDS);
        long answeredMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - asked);
        queued.get(10, TimeUnit.SECONDS);
        second.close();

        assertThat(result.isHealthy()).as("%s", result).isTrue();
        assertThat(result.getMessage()).startsWith("busy: all 2 connections borrowed");
        assertThat(answeredMillis).as("answered in %d ms, not after the check's %d ms timeout", answeredMillis,
            LONG_CHECK_MILLIS).isLessThan(LONG_CHECK_MILLIS / 4);
        assertThat(pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().getTotalConnections()).as("connections opened")
            .isEqualTo(2);
    }

    @Test
    void aBusyPoolWhereNoConnectionComesBackIsUnhealthyAfterTheCheckTimeout() throws Exception {
        start(1, 500);
        try (Connection held = pool.getConnection()) {
            HealthCheck.Result result = healthChecks.runHealthCheck(CHECK);

            assertThat(result.isHealthy()).as("%s", result).isFalse();
            assertThat(result.getMessage())
                .isEqualTo("all 1 connections borrowed and none came back within 500ms; 0 waiting");
        }
    }

    @Test
    void aCheckTurningUnhealthyWithoutAnExceptionIsLoggedOnceWithItsMessage() throws Exception {
        start(1, 300);
        Logger logger = (Logger) LoggerFactory.getLogger(PoolHealthChecks.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        logger.addAppender(logged);
        try (Connection held = pool.getConnection()) {
            assertThat(healthChecks.runHealthCheck(CHECK).isHealthy()).isFalse();
            assertThat(healthChecks.runHealthCheck(CHECK).isHealthy()).isFalse();
        } finally {
            logger.detachAppender(logged);
        }

        assertThat(logged.list).as("one WARN for two unhealthy answers in a row").singleElement().satisfies(event -> {
            assertThat(event.getLevel()).isEqualTo(Level.WARN);
            assertThat(event.getFormattedMessage()).isEqualTo("Health check " + CHECK + " is unhealthy: all 1 "
                + "connections borrowed and none came back within 300ms; 0 waiting");
            assertThat(event.getThrowableProxy()).as("no exception, so no stack trace").isNull();
        });
    }
}
