package io.github.dropwizardhikari.holders;

import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class LeakWarningTest {
    private final HolderPools pools = new HolderPools();

    @AfterEach
    void stop() {
        pools.close();
    }

    @Test
    void aHoldPastTheLeakThresholdIsWarnedAboutOnceNamingItsHolder() throws Exception {
        HikariDataSourceFactory factory = pools.factory("leaky", 2, 1_000);
        // HikariCP's lowest
        factory.setLeakDetectionThreshold(Duration.seconds(2));
        ManagedHikariDataSource dataSource = pools.start("leaky", factory);
        try (LogCapture log = new LogCapture()) {
            pools.extension.labels().set(Holder.request("GET", "/reports/{id}"));
            try (Connection ignored = dataSource.getConnection()) {
                HolderPools.await("the leak warning", () -> !log.warnings().isEmpty());
                // two more sweeps
                TimeUnit.MILLISECONDS.sleep(2_500);
            } finally {
                pools.extension.labels().clear();
            }
            assertThat(log.warnings()).singleElement().satisfies(line -> assertThat(line).matches(
                "Pool leaky: a connection borrowed by GET /reports/\\{id} on thread \"" + Thread.currentThread()
                    .getName() + "\" has been held for \\d+\\.\\d s, past leakDetectionThreshold \\(2000 ms\\); "
                    + "HikariCP logs the stack of its borrow"));
        }
    }

    @Test
    void aHoldEndedPastTheThresholdBetweenTwoSweepsIsWarnedAboutOnce() throws Exception {
        HikariDataSourceFactory factory = pools.factory("brief", 2, 1_000);
        factory.setLeakDetectionThreshold(Duration.seconds(2));
        ManagedHikariDataSource dataSource = pools.start("brief", factory);
        try (LogCapture log = new LogCapture()) {
            pools.extension.labels().set(Holder.task("export"));
            try (Connection ignored = dataSource.getConnection()) {
                // past the threshold by less than a sweep's period: a sweep may or may not see it held
                TimeUnit.MILLISECONDS.sleep(2_300);
            } finally {
                pools.extension.labels().clear();
            }
            TimeUnit.MILLISECONDS.sleep(1_500);
            assertThat(log.warnings()).singleElement().satisfies(line -> assertThat(line).matches(
                "Pool brief: a connection borrowed by task \"export\" on thread \"" + Thread.currentThread().getName()
                    + "\" (has been|was) held for \\d+\\.\\d s, past leakDetectionThreshold \\(2000 ms\\); "
                    + "HikariCP logs the stack of its borrow"));
        }
    }

    @Test
    void aHoldOutsideRequestsAndTasksNamesItsThreadOnce() throws Exception {
        HikariDataSourceFactory factory = pools.factory("threaded", 2, 1_000);
        factory.setLeakDetectionThreshold(Duration.seconds(2));
        ManagedHikariDataSource dataSource = pools.start("threaded", factory);
        try (LogCapture log = new LogCapture()) {
            try (Connection ignored = dataSource.getConnection()) {
                HolderPools.await("the leak warning", () -> !log.warnings().isEmpty());
            }
            assertThat(log.warnings()).singleElement().satisfies(line -> assertThat(line).matches(
                "Pool threaded: a connection borrowed by thread \"" + Thread.currentThread().getName()
                    + "\" has been held for \\d+\\.\\d s, past leakDetectionThreshold \\(2000 ms\\); "
                    + "HikariCP logs the stack of its borrow"));
        }
    }

    @Test
    void noLeakWarningWithoutTheThreshold() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("unwatched", 1, 1_000);
        try (LogCapture log = new LogCapture(); Connection ignored = dataSource.getConnection()) {
            TimeUnit.MILLISECONDS.sleep(2_500);
            pools.holds("unwatched").sweep();
            assertThat(log.warnings()).isEmpty();
        }
    }
}
