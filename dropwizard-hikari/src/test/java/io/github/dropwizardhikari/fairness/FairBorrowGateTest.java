package io.github.dropwizardhikari.fairness;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dropwizardhikari.pool.ManagedHikariDataSource;
import io.github.dropwizardhikari.pool.TestPoolOptions;
import org.h2.jdbc.JdbcConnection;
import org.h2.jdbc.JdbcPreparedStatement;
import org.h2.jdbc.JdbcStatement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The fair borrow gate in front of a real HikariCP pool over H2, with real threads. */
class FairBorrowGateTest {
    private final MetricRegistry metrics = new MetricRegistry();
    private final List<ManagedHikariDataSource> built = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopAll() throws Exception {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
        for (ManagedHikariDataSource dataSource : built) {
            dataSource.stop();
        }
    }

    private ManagedHikariDataSource build(String name, int size, long timeoutMillis) throws Exception {
        return build(name, size, timeoutMillis, metrics);
    }

    /** @param registry where the pool's metrics go; {@code null}: nowhere, and no tracker records its borrows */
    private ManagedHikariDataSource build(String name, int size, long timeoutMillis, MetricRegistry registry)
        throws Exception {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl("jdbc:h2:mem:gate-" + name + ";DB_CLOSE_DELAY=-1");
        config.setUsername("sa");
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setConnectionTimeout(timeoutMillis);
        config.setValidationTimeout(250);
        config.setMetricRegistry(registry);
        ManagedHikariDataSource dataSource = new ManagedHikariDataSource(config, null,
            TestPoolOptions.fair());
        built.add(dataSource);
        dataSource.start();
        return dataSource;
    }

    private static FairBorrowGate gate(ManagedHikariDataSource dataSource) throws SQLException {
        return dataSource.unwrap(FairBorrowGate.class);
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            TimeUnit.MILLISECONDS.sleep(2);
        }
    }

    @Test
    void borrowersWhoFindEveryConnectionOutGetOneInArrivalOrder() throws Exception {
        ManagedHikariDataSource dataSource = build("arrival", 1, 20_000);
        FairBorrowGate gate = gate(dataSource);
        List<String> served = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Void>> borrowers = new ArrayList<>();

        Connection held = dataSource.getConnection();
        for (int i = 0; i < 8; i++) {
            String id = "borrower-" + i;
            borrowers.add(CompletableFuture.runAsync(() -> {
                try (Connection connection = dataSource.getConnection()) {
                    served.add(id);
                    assertThat(connection.isValid(1)).isTrue();
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            }, threads));
            int queued = i + 1;
            // the next borrower starts only once this one is queued, so arrival order is known
            await(queued + " borrowers queue", () -> gate.waiting() == queued);
        }
        assertThat(metrics.getGauges().get("arrival.pool.GateWaiting").getValue()).isEqualTo(8);
        held.close();

        CompletableFuture.allOf(borrowers.toArray(CompletableFuture[]::new)).get(20, TimeUnit.SECONDS);
        assertThat(served).containsExactly("borrower-0", "borrower-1", "borrower-2", "borrower-3", "borrower-4",
            "borrower-5", "borrower-6", "borrower-7");
        assertThat(metrics.timer("arrival.pool.GateWait").getCount()).isEqualTo(8);
        assertThat(gate.waiting()).isZero();
        assertThat(gate.freePlaces()).isEqualTo(1);
    }

    @Test
    void aQueuedBorrowLeavesNoQueuedTimeOnItsThreadWhenNoTrackerTakesIt() throws Exception {
        ManagedHikariDataSource dataSource = build("untracked", 1, 20_000, null);
        FairBorrowGate gate = gate(dataSource);

        Connection held = dataSource.getConnection();
        CompletableFuture<Boolean> leftOver = CompletableFuture.supplyAsync(() -> {
            try (Connection connection = dataSource.getConnection()) {
                assertThat(connection.isValid(1)).isTrue();
                // another pool's tracker on this thread would otherwise read this pool's queued time
                return FairBorrowGate.queuedTimeLeftOnThisThread();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, threads);
        await("the borrower queues", () -> gate.waiting() == 1);
        held.close();

        assertThat(leftOver.get(20, TimeUnit.SECONDS)).isFalse();
        assertThat(metrics.getNames()).noneMatch(name -> name.startsWith("untracked."));
    }

    @Test
    void aBorrowerThatWaitsAtTheGateTooLongGetsHikarisTimeoutOnTime() throws Exception {
        ManagedHikariDataSource dataSource = build("gate-timeout", 1, 1_000);
        long timeoutsBefore = metrics.meter("gate-timeout.pool.ConnectionTimeoutRate").getCount();
        try (Connection held = dataSource.getConnection()) {
            long started = System.nanoTime();
            assertThatThrownBy(dataSource::getConnection)
                .isExactlyInstanceOf(SQLTransientConnectionException.class)
                .hasMessageMatching("gate-timeout - Connection is not available, request timed out after \\d+ms "
                    + "\\(total=1, active=1, idle=0, waiting=\\d+\\)");
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            // never early; late only by what a loaded 2-core machine adds
            assertThat(waited).isBetween(1_000L, 3_000L);
            assertThat(held.isValid(1)).isTrue();
        }
        assertThat(metrics.meter("gate-timeout.pool.ConnectionTimeoutRate").getCount()).isEqualTo(timeoutsBefore + 1);
        assertThat(gate(dataSource).freePlaces()).isEqualTo(1);
    }

    @Test
    void theGatesWaitAndHikarisWaitTogetherStayWithinTheConnectionTimeout() throws Exception {
        ManagedHikariDataSource dataSource = build("total", 1, 2_000);
        HikariDataSource hikari = dataSource.unwrap(HikariDataSource.class);
        // the only connection, taken past the gate: whoever passes the gate then waits inside HikariCP
        try (Connection outsideTheGate = hikari.getConnection()) {
            CompletableFuture<Long> first = timedBorrow(dataSource);
            await("the first borrower is past the gate", () -> gateOf(dataSource).freePlaces() == 0);
            TimeUnit.MILLISECONDS.sleep(1_000);
            long started = System.nanoTime();
            CompletableFuture<Long> second = timedBorrow(dataSource);

            assertThat(first.get(20, TimeUnit.SECONDS)).isBetween(2_000L, 4_000L);
            long secondWaited = second.get(20, TimeUnit.SECONDS);
            // the second waited ~1 s at the gate, then only the ~1 s left inside HikariCP: 2 s in all, not 3
            assertThat(secondWaited).isBetween(2_000L, 2_900L);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(2_900L);
            assertThat(outsideTheGate.isValid(1)).isTrue();
        }
        assertThat(gateOf(dataSource).freePlaces()).isEqualTo(1);
    }

    @Test
    void aBorrowerWhoseTimeRunsOutInsideHikariAfterQueueingKeepsNoInterruptAndBorrowsAgain() throws Exception {
        ManagedHikariDataSource dataSource = build("deadline", 1, 1_000);
        HikariDataSource hikari = dataSource.unwrap(HikariDataSource.class);
        long timeoutsBefore = metrics.meter("deadline.pool.ConnectionTimeoutRate").getCount();
        try (Connection outsideTheGate = hikari.getConnection()) {
            CompletableFuture<Long> first = timedBorrow(dataSource);
            await("the first borrower is past the gate", () -> gateOf(dataSource).freePlaces() == 0);
            TimeUnit.MILLISECONDS.sleep(500);
            long started = System.nanoTime();

            // queues until the first times out, then waits inside HikariCP until its own deadline
            assertThatThrownBy(dataSource::getConnection)
                .isExactlyInstanceOf(SQLTransientConnectionException.class)
                .hasMessageMatching("deadline - Connection is not available, request timed out after \\d+ms "
                    + "\\(total=1, active=1, idle=0, waiting=\\d+\\)")
                .hasNoCause();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isBetween(1_000L, 3_000L);
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
            first.get(20, TimeUnit.SECONDS);
        }
        // HikariCP counted the first borrower's timeout, the gate the second's: each once
        assertThat(metrics.meter("deadline.pool.ConnectionTimeoutRate").getCount()).isEqualTo(timeoutsBefore + 2);
        try (Connection again = dataSource.getConnection()) {
            assertThat(again.isValid(1)).isTrue();
        }
        assertThat(gateOf(dataSource).freePlaces()).isEqualTo(1);
    }

    /** Borrows and expects the timeout; answers how long it took by the exception's own account. */
    private CompletableFuture<Long> timedBorrow(ManagedHikariDataSource dataSource) {
        return CompletableFuture.supplyAsync(() -> {
            long started = System.nanoTime();
            try (Connection unexpected = dataSource.getConnection()) {
                throw new AssertionError("got a connection: " + unexpected);
            } catch (SQLTransientConnectionException e) {
                long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                String reported = e.getMessage().replaceAll(".*timed out after (\\d+)ms.*", "$1");
                // the message reports the whole wait, as HikariCP's own does
                assertThat(Long.parseLong(reported)).isBetween(waited - 50, waited);
                return waited;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, threads);
    }

    private static FairBorrowGate gateOf(ManagedHikariDataSource dataSource) {
        try {
            return gate(dataSource);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void closingTwiceReturnsThePlaceOnce() throws Exception {
        ManagedHikariDataSource dataSource = build("twice", 2, 1_000);
        Connection connection = dataSource.getConnection();
        assertThat(gate(dataSource).freePlaces()).isEqualTo(1);

        connection.close();
        connection.close();

        assertThat(gate(dataSource).freePlaces()).isEqualTo(2);
        assertThat(connection.isClosed()).isTrue();
        assertPoolServesExactlyItsSize(dataSource, 2);
    }

    @Test
    void abortReturnsThePlaceAndALaterCloseDoesNotReturnItAgain() throws Exception {
        ManagedHikariDataSource dataSource = build("aborted", 2, 1_000);
        Connection connection = dataSource.getConnection();

        connection.abort(Runnable::run);
        assertThat(gate(dataSource).freePlaces()).isEqualTo(2);
        connection.close();

        assertThat(gate(dataSource).freePlaces()).isEqualTo(2);
        assertPoolServesExactlyItsSize(dataSource, 2);
    }

    @Test
    void evictionReturnsThePlaceAndALaterCloseDoesNotReturnItAgain() throws Exception {
        ManagedHikariDataSource dataSource = build("evicted", 2, 1_000);
        HikariDataSource hikari = dataSource.unwrap(HikariDataSource.class);
        Connection connection = dataSource.getConnection();

        hikari.evictConnection(connection);
        assertThat(gate(dataSource).freePlaces()).isEqualTo(2);
        connection.close();

        assertThat(gate(dataSource).freePlaces()).isEqualTo(2);
        // HikariCP replaced the evicted connection: both places lead to a connection again
        assertPoolServesExactlyItsSize(dataSource, 2);
    }

    /**
     * Every way JDBC gives back to the connection closes the one the caller borrowed, so the place goes back with
     * the connection whichever object the application closes it through; five thousand closes lose no place.
     */
    @Test
    void everyWayBackToTheConnectionReturnsItsPlaceThousandsOfTimes() throws Exception {
        ManagedHikariDataSource dataSource = build("ways-back", 2, 1_000);
        HikariDataSource hikari = dataSource.unwrap(HikariDataSource.class);
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
            connection -> connection.abort(Runnable::run),
            hikari::evictConnection);
        // the borrowed connection itself is never closed but by the first way: a place held after any other way
        // back leaves one connection, then none, and the next borrow times out
        for (int round = 0; round < 500; round++) {
            for (ThrowingConsumer<Connection> wayBack : waysBack) {
                wayBack.accept(dataSource.getConnection());
            }
        }
        assertThat(gate(dataSource).freePlaces()).isEqualTo(2);
        assertPoolServesExactlyItsSize(dataSource, 2);
    }

    @Test
    void statementsResultSetsAndMetadataLeadBackToTheBorrowedConnection() throws Exception {
        ManagedHikariDataSource dataSource = build("identity", 1, 1_000);
        try (Connection connection = dataSource.getConnection();
             Statement statement = connection.createStatement();
             PreparedStatement prepared = connection.prepareStatement("SELECT 1");
             ResultSet rows = prepared.executeQuery()) {
            assertThat(statement.getConnection()).isSameAs(connection);
            assertThat(prepared.getConnection()).isSameAs(connection);
            assertThat(rows.getStatement()).isSameAs(prepared);
            assertThat(rows.next()).isTrue();
            assertThat(rows.getInt(1)).isEqualTo(1);
            assertThat(connection.getMetaData().getConnection()).isSameAs(connection);
            try (ResultSet generated = statement.executeQuery("SELECT 2")) {
                assertThat(generated.getStatement()).isSameAs(statement);
            }
            assertThat(statement.unwrap(JdbcStatement.class)).isInstanceOf(JdbcStatement.class);
            assertThat(statement.unwrap(Statement.class)).isSameAs(statement);
            assertThat(prepared.isWrapperFor(JdbcPreparedStatement.class)).isTrue();
            assertThat(statement).isEqualTo(statement).isNotEqualTo(prepared);
        }
    }

    /** A step that may throw what JDBC throws. */
    @FunctionalInterface
    private interface ThrowingConsumer<T> {
        void accept(T value) throws SQLException;
    }

    /** Exactly {@code size} connections at once, then a timeout: no place was lost and none was added. */
    private void assertPoolServesExactlyItsSize(ManagedHikariDataSource dataSource, int size) throws Exception {
        List<Connection> all = new ArrayList<>();
        try {
            for (int i = 0; i < size; i++) {
                all.add(dataSource.getConnection());
            }
            assertThat(gate(dataSource).freePlaces()).isZero();
            assertThatThrownBy(dataSource::getConnection).isInstanceOf(SQLTransientConnectionException.class);
        } finally {
            for (Connection connection : all) {
                connection.close();
            }
        }
        assertThat(gate(dataSource).freePlaces()).isEqualTo(size);
    }

    @Test
    void unwrapReachesTheDriversConnection() throws Exception {
        ManagedHikariDataSource dataSource = build("unwrapped", 1, 1_000);
        try (Connection connection = dataSource.getConnection()) {
            assertThat(connection).isInstanceOf(GatedConnection.class);
            assertThat(connection.isWrapperFor(JdbcConnection.class)).isTrue();
            assertThat(connection.unwrap(JdbcConnection.class)).isInstanceOf(JdbcConnection.class);
            assertThat(connection.unwrap(Connection.class)).isSameAs(connection);
            assertThat(connection.isWrapperFor(String.class)).isFalse();
        }
    }

    @Test
    void aPoolResizedAtRuntimeGetsAPlacePerConnection() throws Exception {
        ManagedHikariDataSource dataSource = build("resized", 2, 1_000);
        HikariDataSource hikari = dataSource.unwrap(HikariDataSource.class);

        hikari.getHikariConfigMXBean().setMaximumPoolSize(3);
        assertThat(gate(dataSource).freePlaces()).isEqualTo(3);
        hikari.getHikariConfigMXBean().setMaximumPoolSize(1);
        assertThat(gate(dataSource).freePlaces()).isEqualTo(1);
    }

    @Test
    void stopRemovesTheGatesMetricsSoTheNameCanBeBuiltAgain() throws Exception {
        ManagedHikariDataSource first = build("gate-rebuilt", 1, 1_000);
        assertThat(metrics.getNames()).contains("gate-rebuilt.pool.GateWait", "gate-rebuilt.pool.GateWaiting");

        first.stop();
        assertThat(metrics.getNames()).noneMatch(name -> name.startsWith("gate-rebuilt."));

        ManagedHikariDataSource second = build("gate-rebuilt", 1, 1_000);
        try (Connection connection = second.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }
        assertThat(metrics.getNames()).contains("gate-rebuilt.pool.GateWait", "gate-rebuilt.pool.GateWaiting");
    }

    @Test
    void anInterruptedBorrowerStopsWaitingAndLeavesItsPlace() throws Exception {
        ManagedHikariDataSource dataSource = build("interrupted", 1, 20_000);
        try (Connection held = dataSource.getConnection()) {
            Thread borrower = Thread.currentThread();
            CompletableFuture<Void> interrupter = CompletableFuture.runAsync(() -> {
                try {
                    await("the borrower queues", () -> gateOf(dataSource).waiting() == 1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                borrower.interrupt();
            }, threads);
            assertThatThrownBy(dataSource::getConnection)
                .isInstanceOf(SQLException.class)
                .hasMessage("interrupted - Interrupted during connection acquisition");
            assertThat(Thread.interrupted()).isTrue();
            interrupter.get(20, TimeUnit.SECONDS);
            assertThat(held.isValid(1)).isTrue();
        }
        assertThat(gate(dataSource).freePlaces()).isEqualTo(1);
        assertThat(gate(dataSource).waiting()).isZero();
    }
}
