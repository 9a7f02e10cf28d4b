package io.github.dropwizardhikari.faulthandling;

import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A borrower of a pool that has never connected waits outside HikariCP for the pool's first attempt, at most its
 * connection timeout: a failed first attempt ends every such wait at once, and no thread is ever interrupted.
 */
class FirstAttemptWaitTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, a database that is down or slow at start."
            + " WARN and ERROR lines in this log are expected.");
    }

    // the wait a failed first attempt saves: long, so that the bound below proves its point by a wide margin
    private static final Duration LONG_WAIT = Duration.seconds(20);
    private final MetricRegistry metrics = new MetricRegistry();
    private final List<ManagedHikariDataSource> pools = new ArrayList<>();

    @AfterEach
    void stop() {
        OutageDriver.down(false);
        SlowDriver.delay(0);
        pools.forEach(ManagedHikariDataSource::stop);
    }

    private ManagedHikariDataSource startedEmpty(String driver, String url, String name, Duration maxWait)
        throws Exception {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setDriverClass(driver);
        factory.setUrl(url);
        factory.setMinSize(0);
        factory.setInitialSize(0);
        factory.setMaxSize(2);
        factory.setMaxWaitForConnection(maxWait);
        factory.setExtensions(List.of(new FaultHandlingExtension()));
        ManagedHikariDataSource pool = (ManagedHikariDataSource) factory.build(metrics, name);
        pools.add(pool);
        pool.start();
        return pool;
    }

    private static long millisSince(long started) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    }

    @Test
    void aFailedFirstAttemptEndsEveryWaitAtOnceWithoutAnInterrupt() throws Exception {
        OutageDriver.down(true);
        ManagedHikariDataSource pool = startedEmpty(OutageDriver.class.getName(), OutageDriver.url("first-down"),
            "first-down", LONG_WAIT);
        ExecutorService borrowers = Executors.newFixedThreadPool(8);
        try {
            List<Callable<String>> eight = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                eight.add(() -> {
                    long started = System.nanoTime();
                    SQLTransientConnectionException failed = catchThrowableOfType(
                        SQLTransientConnectionException.class, () -> {
                            try (Connection ignored = pool.getConnection()) {
                                throw new AssertionError("got a connection while the database is down");
                            }
                        });
                    long waited = millisSince(started);
                    assertThat(failed.getMessage()).contains("Connection refused");
                    return waited + " ms, interrupted " + Thread.currentThread().isInterrupted();
                });
            }
            for (Future<String> answer : borrowers.invokeAll(eight)) {
                String outcome = answer.get(30, TimeUnit.SECONDS);
                // 20 s avoided: each failed within a couple of seconds at most, and no flag was left set
                assertThat(Long.parseLong(outcome.substring(0, outcome.indexOf(' ')))).as(outcome)
                    .isLessThan(2_000);
                assertThat(outcome).endsWith("interrupted false");
            }
        } finally {
            borrowers.shutdown();
        }
        // every failed borrow counted once
        Meter failures = metrics.meter("first-down.pool.ConnectionTimeoutRate");
        assertThat(failures.getCount()).isEqualTo(8);
    }

    @Test
    void aFirstAttemptThatDoesNotAnswerIsWaitedForAtMostTheConnectionTimeout() throws Exception {
        SlowDriver.delay(5_000);
        ManagedHikariDataSource pool = startedEmpty(SlowDriver.class.getName(), SlowDriver.url("first-slow"),
            "first-slow", Duration.seconds(1));
        long started = System.nanoTime();
        SQLTransientConnectionException failed = catchThrowableOfType(SQLTransientConnectionException.class, () -> {
            try (Connection ignored = pool.getConnection()) {
                throw new AssertionError("got a connection from an attempt that takes 5 s");
            }
        });
        long waited = millisSince(started);
        assertThat(waited).as("waited, ms").isBetween(900L, 2_500L);
        assertThat(failed.getMessage()).contains("request timed out after 1000ms", "first attempt has not answered");
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        assertThat(metrics.meter("first-slow.pool.ConnectionTimeoutRate").getCount()).isEqualTo(1);
    }

    @Test
    void borrowersWaitingForTheFirstAttemptAreCountedAsWaitingAndTheirWaitIsRecorded() throws Exception {
        SlowDriver.delay(1_500);
        ManagedHikariDataSource pool = startedEmpty(SlowDriver.class.getName(), SlowDriver.url("first-wait"),
            "first-wait", Duration.seconds(10));
        ExecutorService borrowers = Executors.newFixedThreadPool(2);
        try {
            List<Future<Boolean>> answers = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                answers.add(borrowers.submit(() -> {
                    try (Connection connection = pool.getConnection()) {
                        return connection.isValid(1);
                    }
                }));
            }
            TimeUnit.MILLISECONDS.sleep(700);
            // both wait outside HikariCP; the background borrow that makes HikariCP try is no one's
            assertThat(metrics.getGauges().get("first-wait.pool.PendingConnections").getValue()).isEqualTo(2);
            for (Future<Boolean> answer : answers) {
                assertThat(answer.get(20, TimeUnit.SECONDS)).isTrue();
            }
        } finally {
            borrowers.shutdown();
        }
        // Wait holds the two borrowers only, each with its whole wait (the first attempt's 1.5 s, at least most of it)
        assertThat(metrics.timer("first-wait.pool.Wait").getCount()).isEqualTo(2);
        assertThat(TimeUnit.NANOSECONDS.toMillis(metrics.timer("first-wait.pool.Wait").getSnapshot().getMax()))
            .as("longest wait, ms").isGreaterThanOrEqualTo(700);
        assertThat(metrics.meter("first-wait.pool.ConnectionTimeoutRate").getCount()).isZero();
    }
}
