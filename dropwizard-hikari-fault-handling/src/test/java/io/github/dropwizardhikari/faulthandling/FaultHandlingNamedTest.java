package io.github.dropwizardhikari.faulthandling;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import io.github.dropwizardhikari.PoolExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Naming {@code fault-handling} turns on the whole of the fault handling; without it, the pool meets a dead
 * connection and an outage as HikariCP alone does.
 */
class FaultHandlingNamedTest {
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

    /** A pool started with the database down, whose borrowers wait at most {@code maxWait}. */
    private ManagedHikariDataSource startDown(String name, Duration maxWait, PoolExtension... extensions)
        throws Exception {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setDriverClass(OutageDriver.class.getName());
        factory.setUrl(OutageDriver.url(name));
        factory.setMaxSize(1);
        factory.setMinSize(1);
        factory.setMaxWaitForConnection(maxWait);
        factory.setIgnoreExceptionOnPreLoad(true);
        factory.setExceptionOverrideClassName(NeverEvict.class.getName());
        factory.setExtensions(List.of(extensions));
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
    void namedTheOverrideAsksTheUsersFirstAndBorrowersFailFastDuringAnOutage() throws Exception {
        // borrowers would wait 30 s for the database: failing fast is shown against that
        ManagedHikariDataSource down = startDown("faults-on", Duration.seconds(30), new FaultHandlingExtension());
        failedBorrowMillis(down);

        // the configuration copy is the block's own; the override the pool runs with is asked through HikariCP
        assertThat(down.unwrap(com.zaxxer.hikari.HikariDataSource.class).getExceptionOverride())
            .isInstanceOf(ConnectionLossOverride.class);
        // the goal is 100 ms; a tenth of the avoided wait leaves a loaded 2-core machine its margin
        long failedMillis = failedBorrowMillis(down);
        assertThat(failedMillis).as("the borrow failed after %d ms (its timeout: 30,000 ms)", failedMillis)
            .isLessThan(3_000);
    }

    @Test
    void notNamedHikariCpHasTheUsersOverrideAloneAndBorrowersWaitTheirWholeTimeout() throws Exception {
        ManagedHikariDataSource down = startDown("faults-off", Duration.seconds(1));
        failedBorrowMillis(down);

        assertThat(down.unwrap(com.zaxxer.hikari.HikariDataSource.class).getExceptionOverride())
            .isInstanceOf(NeverEvict.class);
        // HikariCP keeps each borrower until maxWaitForConnection (1 s) while it cannot connect
        long failedMillis = failedBorrowMillis(down);
        assertThat(failedMillis).as("the borrow failed after %d ms (its timeout: 1,000 ms)", failedMillis)
            .isGreaterThanOrEqualTo(900);
    }
}
