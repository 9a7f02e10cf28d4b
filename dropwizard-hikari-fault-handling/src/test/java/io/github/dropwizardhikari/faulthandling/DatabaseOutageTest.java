package io.github.dropwizardhikari.faulthandling;

import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.AfterEach;
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

class DatabaseOutageTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, a database that refuses connections."
            + " WARN and ERROR lines in this log are expected.");
    }

    // a borrower that waits for the database waits this long: failing "at once" is shown against it
    private static final long TIMEOUT_MILLIS = 20_000;
    // the goal is 100 ms; a tenth of the avoided wait leaves a loaded 2-core machine its margin
    private static final long FAST_MILLIS = 2_000;
    private final Environment environment = new Environment("outage-test");
    private final HealthCheckRegistry healthChecks = environment.healthChecks();
    private final List<ManagedHikariDataSource> pools = new ArrayList<>();

    @AfterEach
    void databaseUp() {
        OutageDriver.down(false);
        pools.forEach(ManagedHikariDataSource::stop);
    }

    /** @param startDown whether the pool starts with the database down ({@code initialSize: 0}, minimum idle 0) */
    private ManagedHikariDataSource pool(String name, boolean startDown) {
        return pool(name, startDown, Duration.seconds(1));
    }

    /** @param maxWait the pool's {@code maxWaitForConnection}, and the validation timeout its check waits */
    private ManagedHikariDataSource pool(String name, boolean startDown, Duration maxWait) {
        HikariDataSourceFactory factory = TestPools.outageFactory(name, new FaultHandlingExtension());
        factory.setMaxWaitForConnection(maxWait);
        factory.setValidationQueryTimeout(maxWait);
        if (startDown) {
            factory.setMinSize(0);
            factory.setInitialSize(0);
        }
        ManagedHikariDataSource pool = TestPools.build(factory, environment, name);
        pools.add(pool);
        return pool;
    }

    private static long millisSince(long started) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    }

    private static SQLTransientConnectionException failedBorrow(ManagedHikariDataSource pool) {
        return catchThrowableOfType(SQLTransientConnectionException.class, () -> {
            try (Connection ignored = pool.getConnection()) {
                throw new AssertionError("got a connection while the database is down");
            }
        });
    }

    private static long recoveryMillis(ManagedHikariDataSource pool) throws Exception {
        long upAt = System.nanoTime();
        while (true) {
            try (Connection connection = pool.getConnection()) {
                assertThat(connection.isValid(1)).isTrue();
                return millisSince(upAt);
            } catch (SQLException e) {
                assertThat(millisSince(upAt)).as("recovery").isLessThan(10_000);
                TimeUnit.MILLISECONDS.sleep(10);
            }
        }
    }

    @Test
    void onceABorrowerHasTimedOutTheNextOnesFailAtOnceNamingTheCauseUntilTheDatabaseAnswers() throws Exception {
        ManagedHikariDataSource pool = pool("outage-fast", false, Duration.milliseconds(TIMEOUT_MILLIS));
        try (Connection ignored = pool.getConnection()) {
            // started and filled
        }
        OutageDriver.down(true);
        pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();

        long started = System.nanoTime();
        SQLTransientConnectionException timedOut = failedBorrow(pool);
        long waited = millisSince(started);
        // patient while the database may come back: the whole timeout, and the cause named
        assertThat(waited).as("the first borrow waited %d ms (its timeout: %d ms)", waited, TIMEOUT_MILLIS)
            .isBetween(TIMEOUT_MILLIS - 50, TIMEOUT_MILLIS + 2_000);
        assertThat(timedOut.getMessage()).startsWith("outage-fast - Connection is not available, request timed out")
            .contains("Connection refused", "SQLState 08001");
        assertThat(timedOut.getSQLState()).isEqualTo("08001");
        assertThat(timedOut.getCause()).hasMessage("Connection refused");

        for (int i = 0; i < 20; i++) {
            started = System.nanoTime();
            SQLTransientConnectionException fast = failedBorrow(pool);
            long failedMillis = millisSince(started);
            assertThat(failedMillis).as("borrow %d failed after %d ms (the pool's timeout: %d ms)", i, failedMillis,
                TIMEOUT_MILLIS).isLessThan(FAST_MILLIS);
            assertThat(fast.getSQLState()).isEqualTo("08001");
            assertThat(fast.getMessage()).startsWith("outage-fast - Connection is not available: the database has "
                + "refused every connection attempt for").contains("last: Connection refused, SQLState 08001")
                .endsWith("a borrower has already waited its whole timeout for it");
        }

        OutageDriver.down(false);
        // one retry interval (250 ms) plus one connection, where a borrower would otherwise fail fast until one had
        // waited its whole timeout again
        long recovered = recoveryMillis(pool);
        assertThat(recovered).as("served %d ms after the database answered (the pool's timeout: %d ms)", recovered,
            TIMEOUT_MILLIS).isLessThan(FAST_MILLIS);
        // and borrowers are patient again
        assertThat(pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().getTotalConnections()).isPositive();
    }

    @Test
    void whileDownThePoolTriesFourTimesASecondWhateverTheLoad() throws Exception {
        ManagedHikariDataSource pool = pool("outage-rate", false);
        try (Connection ignored = pool.getConnection()) {
            // started and filled
        }
        OutageDriver.down(true);
        pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();
        int before = OutageDriver.attempts();
        long started = System.nanoTime();
        ExecutorService callers = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> loops = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                loops.add(callers.submit(() -> {
                    while (millisSince(started) < 3_000) {
                        try (Connection ignored = pool.getConnection()) {
                            throw new AssertionError("got a connection while the database is down");
                        } catch (SQLException expected) {
                            Thread.onSpinWait();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> loop : loops) {
                loop.get(10, TimeUnit.SECONDS);
            }
        } finally {
            callers.shutdownNow();
        }
        double perSecond = (OutageDriver.attempts() - before) * 1_000.0 / millisSince(started);
        assertThat(perSecond).as("%.1f connection attempts a second", perSecond).isLessThanOrEqualTo(4.4);
        assertThat(perSecond).as("%.1f connection attempts a second", perSecond).isGreaterThan(2);
    }

    @Test
    void thePoolStartsWithTheDatabaseDownFailsFastAndFillsWhenItAnswers() throws Exception {
        OutageDriver.down(true);
        ManagedHikariDataSource pool = pool("outage-start", true, Duration.milliseconds(TIMEOUT_MILLIS));
        pool.start();
        for (int i = 0; i < 5; i++) {
            long started = System.nanoTime();
            SQLTransientConnectionException fast = failedBorrow(pool);
            long failedMillis = millisSince(started);
            if (i > 0) {
                // the first borrower may meet a pool that has not tried yet
                assertThat(failedMillis).as("borrow %d failed after %d ms (the pool's timeout: %d ms)", i,
                    failedMillis, TIMEOUT_MILLIS).isLessThan(FAST_MILLIS);
                assertThat(fast.getMessage()).contains("Connection refused")
                    .endsWith("the pool has not connected since it started");
            }
            assertThat(fast.getSQLState()).isEqualTo("08001");
        }
        OutageDriver.down(false);
        long recovered = recoveryMillis(pool);
        assertThat(recovered).as("served %d ms after the database answered (the pool's timeout: %d ms)", recovered,
            TIMEOUT_MILLIS).isLessThan(FAST_MILLIS);
    }

    @Test
    void theConnectivityCheckAnswersFromWhatThePoolKnowsTwentyAtATime() throws Exception {
        ManagedHikariDataSource pool = pool("outage-health", false, Duration.milliseconds(TIMEOUT_MILLIS));
        String check = "outage-health.pool.ConnectivityCheck";
        try (Connection ignored = pool.getConnection()) {
            // started and filled
        }
        assertThat(healthChecks.runHealthCheck(check).isHealthy()).isTrue();
        OutageDriver.down(true);
        pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();

        ExecutorService probes = Executors.newFixedThreadPool(20);
        try {
            List<Callable<Long>> twenty = new ArrayList<>();
            List<String> messages = java.util.Collections.synchronizedList(new ArrayList<>());
            for (int i = 0; i < 20; i++) {
                twenty.add(() -> {
                    long started = System.nanoTime();
                    HealthCheck.Result result = healthChecks.runHealthCheck(check);
                    assertThat(result.isHealthy()).isFalse();
                    // the cause's message, no stack trace for /healthcheck to serve
                    assertThat(result.getError()).isNull();
                    messages.add(result.getMessage());
                    return millisSince(started);
                });
            }
            for (Future<Long> answered : probes.invokeAll(twenty)) {
                // HikariCP's own check would wait its timeout, the pool's 20 s, for a connection
                assertThat(answered.get()).as("a check answered in %d ms (its timeout: %d ms)", answered.get(),
                    TIMEOUT_MILLIS).isLessThan(FAST_MILLIS);
            }
            assertThat(messages).allSatisfy(message -> assertThat(message)
                .startsWith("pool outage-health cannot connect: the database has refused every connection attempt")
                .contains("Connection refused", "SQLState 08001"));
        } finally {
            probes.shutdownNow();
        }
        OutageDriver.down(false);
        recoveryMillis(pool);
        assertThat(healthChecks.runHealthCheck(check).isHealthy()).isTrue();
    }

    @Test
    void aRefusedLoginIsNotRetriedByTheBundleButByHikariCp() throws Exception {
        SQLException refused = new SQLException("password authentication failed", "28P01");
        SQLException down = new SQLException("Connection refused", "08001");
        SQLException io = new SQLException("I/O error", null, new java.net.ConnectException("refused"));
        assertThat(RetryingDataSource.unreachable(refused)).isFalse();
        assertThat(RetryingDataSource.unreachable(down)).isTrue();
        assertThat(RetryingDataSource.unreachable(io)).isTrue();
        assertThat(RetryingDataSource.unreachable(new SQLException("the database system is starting up", "57P03")))
            .isTrue();
    }
}
