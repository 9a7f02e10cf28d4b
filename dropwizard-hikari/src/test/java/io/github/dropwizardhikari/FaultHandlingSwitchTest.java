package io.github.dropwizardhikari;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.faults.ConnectionLossOverride;
import io.github.dropwizardhikari.faults.OutageDriver;
import io.github.dropwizardhikari.pool.ManagedHikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code faultHandling} switches the whole of the fault handling: off, the pool meets a dead connection and an
 * outage as HikariCP alone does.
 */
class FaultHandlingSwitchTest {
    private final MetricRegistry metrics = new MetricRegistry();
    private ManagedHikariDataSource pool;

    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, a database that is down at start."
            + " WARN and ERROR lines in this log are expected.");
    }

    @AfterEach
    void stop() {
        OutageDriver.down(false);
        if (pool != null) {
            pool.stop();
        }
    }

    /** A pool started with the database down, whose borrowers wait at most a second. */
    private ManagedHikariDataSource startDown(String name, boolean faultHandling) throws Exception {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setDriverClass(OutageDriver.class.getName());
        factory.setUrl(OutageDriver.url(name));
        factory.setMaxSize(1);
        factory.setMaxWaitForConnection(Duration.seconds(1));
        factory.setIgnoreExceptionOnPreLoad(true);
        factory.setExceptionOverrideClassName(NeverEvict.class.getName());
        factory.setFaultHandling(faultHandling);
        OutageDriver.down(true);
        pool = (ManagedHikariDataSource) factory.build(metrics, name);
        pool.start();
        return pool;
    }

    private static long failedBorrowMillis(ManagedHikariDataSource pool) {
        long started = System.nanoTime();
        assertThatThrownBy(() -> {
            try (Connection ignored = pool.getConnection()) {
                throw new AssertionError("got a connection while the database is down");
            }
        }).isInstanceOf(SQLTransientConnectionException.class);
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    }

    @Test
    void onByDefault() {
        assertThat(new HikariDataSourceFactory().isFaultHandling()).isTrue();
    }

    @Test
    void onTheBundlesOverrideAsksTheUsersFirstAndBorrowersFailFastDuringAnOutage() throws Exception {
        ManagedHikariDataSource down = startDown("faults-on", true);
        failedBorrowMillis(down);

        assertThat(down.configurationCopy().getExceptionOverride()).isInstanceOf(ConnectionLossOverride.class);
        // the goal is 100 ms; the margin is for a loaded 2-core machine
        assertThat(failedBorrowMillis(down)).isLessThan(300);
    }

    @Test
    void offHikariCpHasTheUsersOverrideAloneAndBorrowersWaitTheirWholeTimeout() throws Exception {
        ManagedHikariDataSource down = startDown("faults-off", false);
        failedBorrowMillis(down);

        assertThat(down.configurationCopy().getExceptionOverride()).isInstanceOf(NeverEvict.class);
        // HikariCP keeps each borrower until maxWaitForConnection (1 s) while it cannot connect
        assertThat(failedBorrowMillis(down)).isGreaterThanOrEqualTo(900);
    }
}
