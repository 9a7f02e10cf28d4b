package io.github.dropwizardhikari.fairborrowing;

import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;

import static io.github.dropwizardhikari.fairborrowing.FairPools.assertServesExactly;
import static io.github.dropwizardhikari.fairborrowing.FairPools.await;
import static io.github.dropwizardhikari.fairborrowing.FairPools.hikari;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A place held by a connection HikariCP closed or evicted while it was lent comes back with the core's return event,
 * with no timed look: when its borrower closes it, or, for one HikariCP closed itself, at HikariCP's next record of a
 * return, whichever comes first.
 */
class LostPlacesTest {
    private final FairPools pools = new FairPools();

    @AfterEach
    void stopAll() {
        pools.close();
    }

    @Test
    void aPlaceHeldByAnEvictedConnectionComesBackAtItsCloseAndHikariReplacesTheConnection() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("replaced", 2, 1_000);
        BorrowGate gate = pools.gate("replaced");
        Connection connection = dataSource.getConnection();

        hikari(dataSource).evictConnection(pools.hikariConnectionOfLastBorrow());
        // its borrower still has it: HikariCP's connection reads open until closed
        assertThat(gate.freePlaces()).isEqualTo(1);
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
     * the evicted connection is closed, and the next borrowers are served.
     */
    @Test
    void aPlaceHeldInAPoolThatReplacesNothingComesBackAtTheClose() throws Exception {
        HikariDataSourceFactory factory = pools.factory("elastic", 1, 1_000);
        factory.setMinSize(0);
        ManagedHikariDataSource dataSource = pools.buildStopped("elastic", factory);
        dataSource.start();
        BorrowGate gate = pools.gate("elastic");
        Connection connection = dataSource.getConnection();
        hikari(dataSource).evictConnection(pools.hikariConnectionOfLastBorrow());
        assertThat(gate.freePlaces()).as("the place of the evicted connection, still borrowed").isZero();
        closeAsHikariAllows(connection);
        assertThat(gate.freePlaces()).as("the place, once the connection is closed").isEqualTo(1);

        try (Connection queued = dataSource.getConnection()) {
            assertThat(queued.isValid(1)).isTrue();
        }
        await("the place is back", () -> gate.freePlaces() == 1);
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
