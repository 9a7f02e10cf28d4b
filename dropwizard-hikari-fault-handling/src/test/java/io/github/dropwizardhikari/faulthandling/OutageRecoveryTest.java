package io.github.dropwizardhikari.faulthandling;

import com.codahale.metrics.MetricRegistry;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class OutageRecoveryTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, a database that refuses connections."
            + " WARN and ERROR lines in this log are expected.");
    }

    private static final long OUTAGE_MILLIS = 3_000;

    @AfterEach
    void databaseUp() {
        OutageDriver.down(false);
    }

    private static ManagedHikariDataSource pool(String name, long probeIntervalMillis) {
        return (ManagedHikariDataSource) TestPools.outageFactory(name, TestPools.faultHandling(probeIntervalMillis))
            .build(new MetricRegistry(), name);
    }

    /** @return milliseconds from the database's return until a borrower gets a connection */
    private static long outageThenRecovery(ManagedHikariDataSource dataSource, int[] attemptsWhileDown)
        throws Exception {
        try (Connection ignored = dataSource.getConnection()) {
            // started and filled
        }
        OutageDriver.down(true);
        dataSource.unwrap(com.zaxxer.hikari.HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();
        int before = OutageDriver.attempts();
        long downSince = System.nanoTime();
        while (TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - downSince) < OUTAGE_MILLIS) {
            try (Connection ignored = dataSource.getConnection()) {
                throw new AssertionError("got a connection while the database is down");
            } catch (SQLException expected) {
                TimeUnit.MILLISECONDS.sleep(20);
            }
        }
        attemptsWhileDown[0] = OutageDriver.attempts() - before;
        OutageDriver.down(false);
        long upAt = System.nanoTime();
        while (true) {
            try (Connection connection = dataSource.getConnection()) {
                assertThat(connection.isValid(1)).isTrue();
                return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - upAt);
            } catch (SQLException e) {
                assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - upAt)).as("seconds to recover")
                    .isLessThan(10);
            }
        }
    }

    @Test
    void aStalledPoolServesWithinAProbeIntervalOfTheDatabasesReturn() throws Exception {
        ManagedHikariDataSource dataSource = pool("recovery-probe", 100);
        try {
            int[] attempts = new int[1];
            long recovery = outageThenRecovery(dataSource, attempts);
            // one probe per 100 ms plus HikariCP's back-off: no storm, although callers asked all the time
            assertThat(attempts[0] * 1_000.0 / OUTAGE_MILLIS).as("%d attempts in %d ms", attempts[0], OUTAGE_MILLIS)
                .isLessThan(16);
            // exactly one attempt per interval: 30 in 3 s, and the first one before the outage's first failure
            assertThat(attempts[0]).isBetween(20, 31);
            // a probe interval plus one connection; generous for a loaded machine
            assertThat(recovery).as("served %d ms after the database answered (probe interval: 100 ms)", recovery)
                .isLessThan(500);
        } finally {
            dataSource.stop();
        }
    }

    @Test
    void withoutTheProbeHikariCpWaitsOutItsBackOff() throws Exception {
        ManagedHikariDataSource dataSource = pool("recovery-off", 0);
        try {
            int[] attempts = new int[1];
            long recovery = outageThenRecovery(dataSource, attempts);
            // HikariCP alone: 10 + 20 + ... ms of back-off, so the sleep in progress after 3 s ends 1 to 2 s later
            assertThat(recovery).as("served %d ms after the database answered", recovery).isGreaterThan(500);
        } finally {
            dataSource.stop();
        }
    }

    @Test
    void aHealthyPoolIsNeverProbed() throws Exception {
        ManagedHikariDataSource dataSource = pool("recovery-healthy", 20);
        try {
            try (Connection ignored = dataSource.getConnection()) {
                // started
            }
            TimeUnit.MILLISECONDS.sleep(300);
            int before = OutageDriver.attempts();
            for (int i = 0; i < 50; i++) {
                try (Connection ignored = dataSource.getConnection()) {
                    TimeUnit.MILLISECONDS.sleep(5);
                }
            }
            assertThat(OutageDriver.attempts()).isEqualTo(before);
        } finally {
            dataSource.stop();
        }
    }
}
