package io.github.dropwizardhikari.holders;

import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

class HoldRegistryTest {
    private final HolderPools pools = new HolderPools();

    @AfterEach
    void stop() {
        pools.close();
    }

    @Test
    void aHoldLastsFromTheBorrowToTheClose() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("cycle", 2, 1_000);
        PoolHolds holds = pools.holds("cycle");
        pools.extension.labels().set(Holder.request("GET", "/people/{id}"));
        try (Connection connection = dataSource.getConnection()) {
            assertThat(holds.holds()).singleElement().satisfies(hold -> {
                assertThat(hold.holder.name()).isEqualTo("GET /people/{id}");
                assertThat(hold.thread).isEqualTo(Thread.currentThread().getName());
                assertThat(driverOf(hold.connection)).isSameAs(driverOf(connection));
            });
        } finally {
            pools.extension.labels().clear();
        }
        assertThat(holds.holds()).isEmpty();
    }

    @Test
    void aConnectionClosedOnAnotherThreadLeavesNoHold() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("elsewhere", 2, 1_000);
        PoolHolds holds = pools.holds("elsewhere");
        for (int i = 0; i < 100; i++) {
            Connection connection = dataSource.getConnection();
            CompletableFuture.runAsync(() -> closeQuietly(connection)).join();
        }
        assertThat(holds.holds()).isEmpty();
    }

    @Test
    void theHoldsOfNestedBorrowsEndWhicheverClosesFirst() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("nested", 2, 1_000);
        PoolHolds holds = pools.holds("nested");
        Connection outer = dataSource.getConnection();
        Connection inner = dataSource.getConnection();
        assertThat(holds.holds()).hasSize(2);
        outer.close();
        assertThat(holds.holds()).singleElement()
            .satisfies(hold -> assertThat(driverOf(hold.connection)).isSameAs(driverOf(inner)));
        inner.close();
        assertThat(holds.holds()).isEmpty();
    }

    @Test
    void aConnectionHikariClosedWhileBorrowedLeavesNoHoldOnceClosed() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("evicted", 1, 1_000);
        PoolHolds holds = pools.holds("evicted");
        Connection connection = dataSource.getConnection();
        // HikariCP 7.1 closes an evicted connection at once, borrowed or not, and never records its return; it evicts
        // only its own connection, the one the hold has (the borrower's wraps it while an extension hears returns)
        HolderPools.hikari(dataSource).evictConnection(newest(holds).connection);
        assertThat(holds.holds()).hasSize(1);
        closeAsHikariAllows(connection);
        // the core's return event, on the application's close(), ends the hold
        HolderPools.await("the return ended the evicted connection's hold", () -> holds.holds().isEmpty());
    }

    @Test
    void connectionsHikariClosedAndTheApplicationNeverClosedAreBounded() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("abandoned", 1, 1_000);
        PoolHolds holds = pools.holds("abandoned");
        List<Connection> abandoned = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            dataSource.getConnection();
            Connection hikaris = newest(holds).connection;
            HolderPools.hikari(dataSource).evictConnection(hikaris);
            abandoned.add(hikaris);
        }
        assertThat(holds.holds()).hasSizeGreaterThan(18);
        holds.sweep();
        // twice the pool's size and 16: the newest kept
        assertThat(holds.holds()).hasSize(18).extracting(hold -> hold.connection)
            .containsExactlyElementsOf(abandoned.subList(12, 30));
    }

    @Test
    void aBorrowOutsideRequestsAndTasksIsHeldByItsThread() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("threads", 2, 1_000);
        PoolHolds holds = pools.holds("threads");
        Thread exporter = new Thread(() -> {
            try (Connection ignored = dataSource.getConnection()) {
                assertThat(holds.holds()).singleElement()
                    .satisfies(hold -> assertThat(hold.holder).isEqualTo(new Holder("thread \"nightly-export\"",
                        "other")));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "nightly-export");
        List<Throwable> failures = new ArrayList<>();
        exporter.setUncaughtExceptionHandler((thread, failure) -> failures.add(failure));
        exporter.start();
        exporter.join();
        assertThat(failures).isEmpty();
        assertThat(holds.holds()).isEmpty();
    }

    /** HikariCP may fail to reset a connection it closed itself; its proxy is closed all the same. */
    /**
     * The hold has HikariCP's connection, the borrower the core's around it while an extension hears returns: both
     * unwrap to the same driver connection.
     */
    private static Connection driverOf(Connection connection) throws SQLException {
        return connection.unwrap(Connection.class);
    }

    private static Hold newest(PoolHolds holds) {
        List<Hold> now = holds.holds();
        return now.get(now.size() - 1);
    }

    private static void closeAsHikariAllows(Connection connection) {
        try {
            connection.close();
        } catch (Exception e) {
            assertThat(closed(connection)).as("closed after %s", e).isTrue();
        }
    }

    private static boolean closed(Connection connection) {
        try {
            return connection.isClosed();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
