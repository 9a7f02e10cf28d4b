package io.github.dropwizardhikari.fairborrowing;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.github.dropwizardhikari.fairborrowing.FairPools.assertServesExactly;
import static io.github.dropwizardhikari.fairborrowing.FairPools.await;
import static io.github.dropwizardhikari.fairborrowing.FairPools.hikari;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every way a connection goes back to HikariCP gives its place back, once, whichever object the application closed
 * the connection through: the core tells of the return of the connection it lent, and the gate finds HikariCP's
 * connection closed behind it (through a statement's {@code getConnection()}) before a borrower would queue.
 */
class ReturnPathsTest {
    private final FairPools pools = new FairPools();

    @AfterEach
    void stopAll() {
        pools.close();
    }

    @Test
    void closingTwiceReturnsThePlaceOnce() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("twice", 2, 1_000);
        BorrowGate gate = pools.gate("twice");
        Connection connection = dataSource.getConnection();
        assertThat(gate.freePlaces()).isEqualTo(1);

        connection.close();
        connection.close();

        assertThat(gate.freePlaces()).isEqualTo(2);
        assertThat(connection.isClosed()).isTrue();
        assertServesExactly(dataSource, gate, 2);
    }

    /**
     * After an abort JDBC lets the application close the connection or not; HikariCP hears of the connection again
     * only on its close, which try-with-resources always makes, and which returns the place once.
     */
    @Test
    void anAbortedConnectionReturnsItsPlaceWhenClosedAndOnlyOnce() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("aborted", 2, 1_000);
        BorrowGate gate = pools.gate("aborted");
        Connection connection = dataSource.getConnection();

        connection.abort(Runnable::run);
        closeAsHikariAllows(connection);
        assertThat(gate.freePlaces()).isEqualTo(2);
        closeAsHikariAllows(connection);

        assertThat(gate.freePlaces()).isEqualTo(2);
        assertServesExactly(dataSource, gate, 2);
    }

    /**
     * HikariCP closes the driver's connection of one evicted while borrowed at once, but its own connection reads
     * open until its borrower closes it: the place comes back at that close, and a second close does not return it
     * again.
     */
    @Test
    void anEvictedConnectionReturnsItsPlaceOnceClosed() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("evicted", 2, 1_000);
        BorrowGate gate = pools.gate("evicted");
        Connection connection = dataSource.getConnection();

        hikari(dataSource).evictConnection(pools.hikariConnectionOfLastBorrow());
        assertThat(gate.freePlaces()).as("the evicted connection's place, while it is borrowed").isEqualTo(1);
        closeAsHikariAllows(connection);
        assertThat(gate.freePlaces()).isEqualTo(2);
        closeAsHikariAllows(connection);

        assertThat(gate.freePlaces()).isEqualTo(2);
        // HikariCP replaced the evicted connection: both places lead to a connection again
        assertServesExactly(dataSource, gate, 2);
    }

    /**
     * A connection that fails as a lost one does (SQL state 08006) is closed by HikariCP and never recycled: five of
     * them on a pool of two lose no place, so every borrower after them is served.
     */
    @Test
    void brokenConnectionsThatHikariClosesGiveTheirPlacesBack() throws Exception {
        HikariDataSourceFactory factory = pools.factory("broken", 2, 20_000);
        factory.setUrl(BreakingDriver.url("broken"));
        factory.setDriverClass(BreakingDriver.class.getName());
        ManagedHikariDataSource dataSource = pools.buildStopped("broken", factory);
        dataSource.start();
        BorrowGate gate = pools.gate("broken");

        for (int i = 0; i < 5; i++) {
            try (Connection connection = dataSource.getConnection()) {
                assertThatThrownBy(() -> connection.prepareStatement(BreakingDriver.BREAK))
                    .isInstanceOf(SQLException.class)
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("08006"));
                assertThat(connection.isClosed()).isTrue();
            }
        }
        await("every lost place is back", () -> gate.freePlaces() == 2);
        assertThat(gate.waiting()).isZero();
        hikari(dataSource).getHikariConfigMXBean().setConnectionTimeout(1_000);
        assertServesExactly(dataSource, gate, 2);
    }

    /**
     * The false positive the gate's look for connections closed behind the one the core lent must never act on:
     * other returns (here, borrows from HikariCP directly) and a borrower queueing leave the places of held
     * connections taken, and the borrower stays queued until one is returned.
     */
    @Test
    void heldConnectionsKeepTheirPlacesThroughOtherReturns() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("held", 3, 20_000);
        BorrowGate gate = pools.gate("held");
        ExecutorService borrower = Executors.newSingleThreadExecutor();
        try (Connection first = dataSource.getConnection()) {
            Connection second = dataSource.getConnection();
            for (int i = 0; i < 5; i++) {
                try (Connection direct = hikari(dataSource).getConnection()) {
                    assertThat(direct.isValid(1)).isTrue();
                }
                assertThat(gate.freePlaces()).as("free places while two connections are held").isEqualTo(1);
            }
            Connection third = dataSource.getConnection();
            Future<Boolean> queued = borrower.submit(() -> {
                try (Connection connection = dataSource.getConnection()) {
                    return connection.isValid(1);
                }
            });
            await("the fourth borrower queues", () -> gate.waiting() == 1);
            for (int i = 0; i < 5; i++) {
                TimeUnit.MILLISECONDS.sleep(100);
                assertThat(gate.freePlaces()).as("free places while every connection is held").isZero();
                assertThat(gate.waiting()).as("borrowers queued").isEqualTo(1);
            }
            third.close();
            assertThat(first.isValid(1)).isTrue();
            second.close();
            assertThat(queued.get(20, TimeUnit.SECONDS)).isTrue();
        } finally {
            borrower.shutdownNow();
        }
        assertThat(gate.freePlaces()).isEqualTo(3);
    }

    /**
     * Every way JDBC gives back to the connection closes the one the caller borrowed, so the place goes back
     * whichever object the application closes it through; ten thousand borrows lose no place and add none.
     */
    @Test
    void everyWayBackToTheConnectionReturnsItsPlaceTenThousandTimes() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("ways-back", 2, 1_000);
        BorrowGate gate = pools.gate("ways-back");
        List<ThrowingConsumer<Connection>> waysBack = List.of(
            Connection::close,
            connection -> connection.createStatement().getConnection().close(),
            connection -> connection.prepareStatement("SELECT 1").getConnection().close(),
            connection -> connection.prepareCall("CALL 1").getConnection().close(),
            connection -> connection.createStatement().executeQuery("SELECT 1").getStatement().getConnection().close(),
            connection -> connection.prepareStatement("SELECT 1").executeQuery().getStatement().getConnection()
                .close(),
            connection -> connection.getMetaData().getConnection().close(),
            connection -> connection.prepareCall("CALL 1").executeQuery().getStatement().getConnection().close(),
            connection -> {
                connection.abort(Runnable::run);
                closeAsHikariAllows(connection);
            });
        // a place kept by any way back leaves one connection, then none, and the next borrow times out
        for (int round = 0; round < 1_112; round++) {
            for (ThrowingConsumer<Connection> wayBack : waysBack) {
                wayBack.accept(dataSource.getConnection());
            }
        }
        // the last way back (an abort, then a close) returned its place at once; a connection closed behind the
        // core's may hold one until a borrower needs it, which the next two borrows show
        assertThat(gate.freePlaces()).isBetween(1, 2);
        assertServesExactly(dataSource, gate, 2);
    }

    /**
     * Sixteen threads borrowing through the gate and four borrowing from HikariCP directly (as its own
     * {@code ConnectivityCheck} does), on four connections: never more than four borrowed at once, every place
     * back at the end, the gate's borrowers all served.
     */
    @Test
    void neverMoreThanMaxSizeOutWhileHikarisOwnBorrowsSkipTheGate() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("mixed", 4, 20_000);
        HikariDataSource hikari = hikari(dataSource);
        BorrowGate gate = pools.gate("mixed");
        AtomicInteger out = new AtomicInteger();
        AtomicInteger mostOut = new AtomicInteger();
        AtomicInteger mostPlacesTaken = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(20);
        try {
            List<Future<Integer>> borrowers = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                boolean direct = i % 5 == 0;
                borrowers.add(threads.submit(() -> {
                    int borrows = 0;
                    for (int cycle = 0; cycle < 500; cycle++) {
                        try (Connection connection = direct ? hikari.getConnection() : dataSource.getConnection()) {
                            mostOut.accumulateAndGet(out.incrementAndGet(), Math::max);
                            mostPlacesTaken.accumulateAndGet(4 - gate.freePlaces(), Math::max);
                            assertThat(connection.isValid(1)).isTrue();
                            out.decrementAndGet();
                            borrows++;
                        }
                    }
                    return borrows;
                }));
            }
            for (Future<Integer> borrower : borrowers) {
                assertThat(borrower.get(60, TimeUnit.SECONDS)).isEqualTo(500);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(mostOut.get()).isLessThanOrEqualTo(4);
        // a borrow that skipped the gate takes no place
        assertThat(mostPlacesTaken.get()).isLessThanOrEqualTo(4);
        assertThat(gate.freePlaces()).isEqualTo(4);
        assertThat(gate.waiting()).isZero();
        // the refusal that ends the check waits the timeout: a short one
        hikari.getHikariConfigMXBean().setConnectionTimeout(1_000);
        assertServesExactly(dataSource, gate, 4);
    }

    /**
     * An error of the application's own work on a borrowed connection (a bad query) is no return: the place stays
     * with the connection until it is closed.
     */
    @Test
    void anErrorOnABorrowedConnectionGivesNoPlaceBack() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("bad-query", 1, 1_000);
        BorrowGate gate = pools.gate("bad-query");
        try (Connection connection = dataSource.getConnection()) {
            try (Statement statement = connection.createStatement()) {
                assertThatThrownBy(() -> statement.executeQuery("SELECT * FROM no_such_table"))
                    .isInstanceOf(SQLException.class);
            }
            assertThat(gate.freePlaces()).isZero();
            assertThatThrownBy(dataSource::getConnection).isInstanceOf(SQLTransientConnectionException.class);
            assertThat(connection.isValid(1)).isTrue();
        }
        assertThat(gate.freePlaces()).isEqualTo(1);
    }

    /** HikariCP may report the aborted or evicted connection's failure on close; it has taken it back by then. */
    private static void closeAsHikariAllows(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            // the driver's connection is gone, which the caller knows
        }
    }

    /** A step that may throw what JDBC throws. */
    @FunctionalInterface
    private interface ThrowingConsumer<T> {
        void accept(T value) throws SQLException;
    }
}
