package io.github.dropwizardhikari.fairborrowing;

import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.TimeUnit;

import static io.github.dropwizardhikari.fairborrowing.FairPools.assertServesExactly;
import static io.github.dropwizardhikari.fairborrowing.FairPools.await;
import static io.github.dropwizardhikari.fairborrowing.FairPools.hikari;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A place lost to a connection HikariCP closed while it was lent comes back on an event, without waiting for the
 * gate's timed look (set to ten minutes here): when HikariCP opens a connection in its stead, or when a borrower is
 * refused at the gate.
 */
class LostPlacesTest {
    private final FairPools pools = new FairPools(TimeUnit.MINUTES.toMillis(10));

    @AfterEach
    void stopAll() {
        pools.close();
    }

    @Test
    void aPlaceLostToAnEvictionComesBackWhenHikariReplacesTheConnection() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("replaced", 2, 1_000);
        BorrowGate gate = pools.gate("replaced");
        Connection connection = dataSource.getConnection();

        hikari(dataSource).evictConnection(connection);
        await("the evicted connection's place is back", () -> gate.freePlaces() == 2);
        closeAsHikariAllows(connection);
        assertThat(gate.freePlaces()).isEqualTo(2);
        assertServesExactly(dataSource, gate, 2);
    }

    @Test
    void placesLostToBrokenConnectionsComeBackWhenHikariReplacesThem() throws Exception {
        HikariDataSourceFactory factory = pools.factory("broken-replaced", 2, 1_000);
        factory.setUrl(BreakingDriver.url("broken-replaced"));
        factory.setDriverClass(BreakingDriver.class.getName());
        ManagedHikariDataSource dataSource = pools.buildStopped("broken-replaced", factory);
        dataSource.start();
        BorrowGate gate = pools.gate("broken-replaced");

        for (int i = 0; i < 5; i++) {
            try (Connection connection = dataSource.getConnection()) {
                assertThatThrownBy(() -> connection.prepareStatement(BreakingDriver.BREAK))
                    .isInstanceOf(SQLException.class);
            }
        }
        await("every lost place is back", () -> gate.freePlaces() == 2);
        assertServesExactly(dataSource, gate, 2);
    }

    /**
     * A pool that keeps no idle connection need not open one in the evicted one's stead: the place comes back when
     * the borrower queued for it is refused (or when HikariCP opens a connection), and the next borrower is served.
     */
    @Test
    void aPlaceLostInAPoolThatReplacesNothingComesBackAtTheRefusal() throws Exception {
        HikariDataSourceFactory factory = pools.factory("elastic", 1, 1_000);
        factory.setMinSize(0);
        ManagedHikariDataSource dataSource = pools.buildStopped("elastic", factory);
        dataSource.start();
        BorrowGate gate = pools.gate("elastic");
        Connection connection = dataSource.getConnection();
        hikari(dataSource).evictConnection(connection);
        closeAsHikariAllows(connection);
        assertThat(gate.freePlaces()).as("the place lost").isZero();

        // refused at the timeout, which looks for the place; or served, when HikariCP opened a connection after all
        try (Connection queued = dataSource.getConnection()) {
            assertThat(queued.isValid(1)).isTrue();
        } catch (SQLTransientConnectionException refused) {
            assertThat(refused.getMessage()).contains("request timed out");
        }
        await("the lost place is back", () -> gate.freePlaces() == 1);
        try (Connection next = dataSource.getConnection()) {
            assertThat(next.isValid(1)).isTrue();
        }
        assertThat(gate.freePlaces()).isEqualTo(1);
    }

    private static void closeAsHikariAllows(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            // the driver's connection is gone, which the caller knows
        }
    }
}
