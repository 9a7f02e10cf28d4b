package io.github.dropwizardhikari.holders;

import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class TimeoutMessageTest {
    private final HolderPools pools = new HolderPools();

    @AfterEach
    void stop() {
        pools.close();
    }

    @Test
    void aTimeoutNamesTheHoldersLongestFirstAfterHikarisOwnFirstLine() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("timeout", 3, 300);
        try (Holding slow = new Holding(dataSource, pools.extension, Holder.request("GET", "/reports/{id}"), 2)) {
            TimeUnit.MILLISECONDS.sleep(200);
            try (Holding fast = new Holding(dataSource, pools.extension, Holder.request("POST", "/orders"), 1)) {
                SQLTransientConnectionException timeout = catchThrowableOfType(SQLTransientConnectionException.class,
                    dataSource::getConnection);

                assertThat(timeout.getClass()).isEqualTo(SQLTransientConnectionException.class);
                List<String> lines = timeout.getMessage().lines().toList();
                assertThat(lines.get(0)).matches("timeout - Connection is not available, request timed out after "
                    + "\\d+ms \\(total=3, active=3, idle=0, waiting=\\d+\\)");
                assertThat(lines.subList(1, lines.size())).hasSize(3);
                assertThat(lines.get(1)).isEqualTo("Holders now, longest first:");
                assertThat(lines.get(2)).matches("  GET /reports/\\{id}: 2 connections, longest \\d+\\.\\d s");
                assertThat(lines.get(3)).matches("  POST /orders: 1 connection, longest \\d+\\.\\d s");
            }
        }
    }

    @Test
    void aTimeoutWithNothingHeldSaysSo() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("unheld", 1, 300);
        // borrowed from HikariCP directly, past the data source's hooks, as its own connectivity check does
        try (Connection ignored = HolderPools.hikari(dataSource).getConnection()) {
            SQLTransientConnectionException timeout = catchThrowableOfType(SQLTransientConnectionException.class,
                dataSource::getConnection);
            assertThat(timeout.getMessage().lines().skip(1))
                .containsExactly("No connection of the pool is held through its data source now.");
        }
    }

    @Test
    void theHoldersBeyondSummaryLinesAreCountedOnOneLine() throws Exception {
        pools.extension.setSummaryLines(2);
        ManagedHikariDataSource dataSource = pools.build("many", 4, 300);
        List<Holding> holdings = new ArrayList<>();
        try {
            for (String path : List.of("/a", "/b", "/c", "/d")) {
                holdings.add(new Holding(dataSource, pools.extension, Holder.request("GET", path), 1));
                TimeUnit.MILLISECONDS.sleep(20);
            }
            SQLTransientConnectionException timeout = catchThrowableOfType(SQLTransientConnectionException.class,
                dataSource::getConnection);
            List<String> lines = timeout.getMessage().lines().toList();
            assertThat(lines).hasSize(5);
            assertThat(lines.get(2)).startsWith("  GET /a: 1 connection");
            assertThat(lines.get(3)).startsWith("  GET /b: 1 connection");
            assertThat(lines.get(4)).isEqualTo("  and 2 more holder(s) of 2 connection(s)");
        } finally {
            for (Holding holding : holdings) {
                holding.close();
            }
        }
    }

    @Test
    void theHoldersAreLoggedOncePerIntervalNotOncePerTimeout() throws Exception {
        pools.extension.setLogInterval(Duration.minutes(10));
        ManagedHikariDataSource dataSource = pools.build("logged", 1, 250);
        try (LogCapture log = new LogCapture();
             Holding ignored = new Holding(dataSource, pools.extension, Holder.task("nightly"), 1)) {
            for (int i = 0; i < 3; i++) {
                catchThrowableOfType(SQLTransientConnectionException.class, dataSource::getConnection);
            }
            assertThat(log.warnings()).singleElement().satisfies(line -> assertThat(line.lines().toList())
                .hasSize(2)
                .satisfies(lines -> assertThat(lines.get(0)).isEqualTo(
                    "Pool logged: 1 borrow(s) timed out since the last report; holders now, longest first:"))
                .satisfies(lines -> assertThat(lines.get(1))
                    .matches("  task \"nightly\": 1 connection, longest \\d+\\.\\d s")));
        }
    }

    /** Connections borrowed on a thread of their own under a holder's name, held until closed. */
    static final class Holding implements AutoCloseable {
        private final CountDownLatch release = new CountDownLatch(1);
        private final Thread thread;

        Holding(ManagedHikariDataSource dataSource, HoldersExtension extension, Holder holder, int connections)
            throws InterruptedException {
            CountDownLatch borrowed = new CountDownLatch(connections);
            thread = new Thread(() -> {
                extension.labels().set(holder);
                List<Connection> held = new ArrayList<>();
                try {
                    for (int i = 0; i < connections; i++) {
                        held.add(dataSource.getConnection());
                        borrowed.countDown();
                    }
                    release.await();
                    for (Connection connection : held) {
                        connection.close();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            thread.start();
            assertThat(borrowed.await(20, TimeUnit.SECONDS)).as("borrowed by %s", holder).isTrue();
        }

        @Override
        public void close() throws InterruptedException {
            release.countDown();
            thread.join();
        }
    }
}
