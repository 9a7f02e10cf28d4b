package io.github.dropwizardhikari.faulthandling;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.health.HealthCheck;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.core.setup.Environment;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The figures users alert on stay true with the fault handling on: every failed borrow is counted once in
 * {@code ConnectionTimeoutRate}, {@code ConnectionCreation} holds connections created and nothing else, the
 * connectivity check of a busy pool opens no connection, and an ordinary SQL error is no fault.
 */
class TrueFiguresTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, a database that refuses connections."
            + " WARN and ERROR lines in this log are expected.");
    }

    private static final long OUTAGE_MILLIS = 3_000;
    private static final String THROW_IF_SUSPENDED = "com.zaxxer.hikari.throwIfSuspended";
    private final Environment environment = new Environment("figures-test");
    private final List<ManagedHikariDataSource> pools = new ArrayList<>();

    @AfterEach
    void databaseUp() {
        OutageDriver.down(false);
        pools.forEach(ManagedHikariDataSource::stop);
    }

    private ManagedHikariDataSource pool(String name, boolean startDown, FaultHandlingExtension... named) {
        HikariDataSourceFactory factory = TestPools.outageFactory(name, named);
        if (startDown) {
            factory.setMinSize(0);
            factory.setInitialSize(0);
        }
        ManagedHikariDataSource pool = TestPools.build(factory, environment, name);
        pools.add(pool);
        return pool;
    }

    private long timeouts(String pool) {
        return environment.metrics().meter(pool + ".pool.ConnectionTimeoutRate").getCount();
    }

    /** @return how many borrows failed during an outage of {@link #OUTAGE_MILLIS} */
    private static int failedBorrowsDuringAnOutage(ManagedHikariDataSource pool) throws Exception {
        int failed = 0;
        long started = System.nanoTime();
        while (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) < OUTAGE_MILLIS) {
            try (Connection ignored = pool.getConnection()) {
                throw new AssertionError("got a connection while the database is down");
            } catch (SQLException expected) {
                failed++;
                TimeUnit.MILLISECONDS.sleep(20);
            }
        }
        return failed;
    }

    @Test
    void everyFailedBorrowIsCountedOnceTheTimeoutAndTheFastFailuresAlike() throws Exception {
        ManagedHikariDataSource pool = pool("count-outage", false, new FaultHandlingExtension());
        try (Connection ignored = pool.getConnection()) {
            // started and filled
        }
        OutageDriver.down(true);
        pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();

        int failed = failedBorrowsDuringAnOutage(pool);

        // one borrower waited its whole second and timed out in HikariCP; the rest failed fast
        assertThat(failed).isGreaterThan(20);
        assertThat(timeouts("count-outage")).isEqualTo(failed);
    }

    /**
     * HikariCP 7.1 refuses a borrow from a suspended pool at once when {@code com.zaxxer.hikari.throwIfSuspended} is
     * set (otherwise it waits for the resume), and does not count the refusal: the fault handling does.
     */
    @Test
    void aSuspendedPoolsRefusalIsCounted() throws Exception {
        HikariDataSourceFactory factory = TestPools.outageFactory("count-suspended", new FaultHandlingExtension());
        factory.setAllowPoolSuspension(true);
        ManagedHikariDataSource pool = TestPools.build(factory, environment, "count-suspended");
        pools.add(pool);
        try (Connection ignored = pool.getConnection()) {
            // started and filled
        }
        System.setProperty(THROW_IF_SUSPENDED, "true");
        pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().suspendPool();
        try {
            for (int i = 0; i < 3; i++) {
                assertThatThrownBy(() -> pool.getConnection().close()).isInstanceOf(SQLException.class)
                    .hasMessageContaining("suspended");
            }
        } finally {
            pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().resumePool();
            System.clearProperty(THROW_IF_SUSPENDED);
        }

        assertThat(timeouts("count-suspended")).isEqualTo(3);
    }

    @Test
    void theBackgroundBorrowThatKeepsAnEmptyPoolTryingIsNotCounted() throws Exception {
        OutageDriver.down(true);
        ManagedHikariDataSource pool = pool("count-empty", true, new FaultHandlingExtension());
        pool.start();

        // 3 s: the background borrow (1 s timeout each) has timed out inside HikariCP at least once meanwhile
        int failed = failedBorrowsDuringAnOutage(pool);

        assertThat(timeouts("count-empty")).isEqualTo(failed);
        assertThat(environment.metrics().timer("count-empty.pool.Wait").getCount()).isZero();
    }

    @Test
    void connectionCreationHoldsConnectionsCreatedNotTheWaitForTheDatabase() throws Exception {
        ManagedHikariDataSource pool = pool("creation", false, new FaultHandlingExtension());
        try (Connection ignored = pool.getConnection()) {
            // started and filled
        }
        OutageDriver.down(true);
        pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();
        int attemptsBefore = OutageDriver.attempts();
        failedBorrowsDuringAnOutage(pool);
        int failedAttempts = OutageDriver.attempts() - attemptsBefore;
        OutageDriver.down(false);
        long upAt = System.nanoTime();
        while (pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().getTotalConnections() < 2) {
            long unfilledMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - upAt);
            assertThat(unfilledMillis).as("not refilled %d ms after the database answered", unfilledMillis)
                .isLessThan(10_000);
            TimeUnit.MILLISECONDS.sleep(10);
        }

        Histogram creation = environment.metrics().histogram("creation.pool.ConnectionCreation");
        // the outage lasted 3 s, and about a dozen attempts failed; an H2 connection takes milliseconds
        assertThat(failedAttempts).isGreaterThan(5);
        // a failed attempt recorded as a creation, or one creation spanning the outage, would show seconds
        assertThat(creation.getSnapshot().getMax()).as("longest creation: %d ms (the outage: %d ms)",
            creation.getSnapshot().getMax(), OUTAGE_MILLIS).isLessThan(OUTAGE_MILLIS / 3);
        // the pool filled twice (HikariCP's start is not recorded, its check at start included): failures are not
        // creations
        assertThat(creation.getCount()).isLessThanOrEqualTo(4);
    }

    @Test
    void withoutTheExtensionHikariCpRecordsTheFailedAttemptsAsCreations() throws Exception {
        ManagedHikariDataSource pool = pool("creation-alone", false);
        try (Connection ignored = pool.getConnection()) {
            // started and filled
        }
        OutageDriver.down(true);
        pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();
        failedBorrowsDuringAnOutage(pool);

        // the contrast that makes the test above mean something: HikariCP 7.1 records each failed attempt
        assertThat(environment.metrics().histogram("creation-alone.pool.ConnectionCreation").getCount())
            .isGreaterThan(4);
    }

    @Test
    void theConnectivityCheckOfABusyPoolOpensNoConnection() throws Exception {
        ManagedHikariDataSource pool = pool("busy", false, new FaultHandlingExtension());
        List<Connection> held = new ArrayList<>();
        try {
            held.add(pool.getConnection());
            held.add(pool.getConnection());
            int attempts = OutageDriver.attempts();

            HealthCheck.Result result = environment.healthChecks().runHealthCheck("busy.pool.ConnectivityCheck");

            // HikariCP's own check, which borrows from the pool: a saturated pool reads unhealthy after the check's
            // timeout, as it does without the extension; no connection was opened beside the pool's two
            assertThat(result.isHealthy()).isFalse();
            assertThat(OutageDriver.attempts()).isEqualTo(attempts);
        } finally {
            for (Connection connection : held) {
                connection.close();
            }
        }
        assertThat(environment.healthChecks().runHealthCheck("busy.pool.ConnectivityCheck").isHealthy()).isTrue();
    }

    /** The fault handling acts on connection errors only: a syntax error keeps the connection and the pool. */
    @Test
    void anOrdinarySqlErrorIsNoFault() throws Exception {
        ManagedHikariDataSource pool = pool("ordinary", false, new FaultHandlingExtension());
        try (Connection ignored = pool.getConnection()) {
            // started and filled
        }
        int attempts = OutageDriver.attempts();
        for (int i = 0; i < 5; i++) {
            try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
                assertThatThrownBy(() -> statement.execute("SELEKT 1")).isInstanceOf(SQLException.class);
            }
        }
        try (Connection connection = pool.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }
        // no connection was evicted and replaced, no borrow failed
        assertThat(OutageDriver.attempts()).isEqualTo(attempts);
        assertThat(timeouts("ordinary")).isZero();
    }
}
