package io.github.dropwizardhikari.fairborrowing;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
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

import static io.github.dropwizardhikari.fairborrowing.FairPools.await;
import static io.github.dropwizardhikari.fairborrowing.FairPools.hikari;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The gate in front of a real HikariCP pool over H2, with real threads: order, timeouts, resizes, stops. */
class BorrowGateTest {
    private final FairPools pools = new FairPools();
    private final MetricRegistry metrics = pools.metrics;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopAll() throws Exception {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
        pools.close();
    }

    @Test
    void borrowersWhoFindEveryConnectionOutGetOneInArrivalOrder() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("arrival", 1, 20_000);
        BorrowGate gate = pools.gate("arrival");
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

    /**
     * A borrow through the gate leaves no mark on its thread: a later borrow on the same thread that skips the gate
     * (HikariCP's data source used directly) takes no place, and gives none back.
     */
    @Test
    void aQueuedBorrowLeavesNoMarkOnItsThreadForALaterBorrowPastTheGate() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("unmarked", 2, 20_000);
        BorrowGate gate = pools.gate("unmarked");
        HikariDataSource hikari = hikari(dataSource);

        Connection first = dataSource.getConnection();
        Connection second = dataSource.getConnection();
        CompletableFuture<List<Integer>> freeSeen = CompletableFuture.supplyAsync(() -> {
            try {
                try (Connection queued = dataSource.getConnection()) {
                    assertThat(queued.isValid(1)).isTrue();
                }
                List<Integer> free = new ArrayList<>();
                try (Connection direct = hikari.getConnection()) {
                    free.add(gate.freePlaces());
                }
                free.add(gate.freePlaces());
                return free;
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, threads);
        await("the borrower queues", () -> gate.waiting() == 1);
        first.close();

        // one of two places is held by the second connection; the direct borrow takes none
        assertThat(freeSeen.get(20, TimeUnit.SECONDS)).containsExactly(1, 1);
        second.close();
        assertThat(gate.freePlaces()).isEqualTo(2);
    }

    @Test
    void aBorrowerThatWaitsAtTheGateTooLongGetsHikarisTimeoutOnTime() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("gate-timeout", 1, 1_000);
        long timeoutsBefore = metrics.meter("gate-timeout.pool.ConnectionTimeoutRate").getCount();
        try (Connection held = dataSource.getConnection()) {
            long started = System.nanoTime();
            assertThatThrownBy(dataSource::getConnection)
                .isExactlyInstanceOf(SQLTransientConnectionException.class)
                .hasMessageMatching("gate-timeout - Connection is not available, request timed out after \\d+ms "
                    + "\\(total=1, active=1, idle=0, waiting=\\d+\\)");
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            // never early; late only by what a loaded 2-core machine adds
            assertThat(waited).as("refused after %d ms (the timeout: 1,000 ms)", waited).isBetween(1_000L, 3_000L);
            assertThat(held.isValid(1)).isTrue();
        }
        assertThat(metrics.meter("gate-timeout.pool.ConnectionTimeoutRate").getCount()).isEqualTo(timeoutsBefore + 1);
        assertThat(pools.gate("gate-timeout").freePlaces()).isEqualTo(1);
    }

    /**
     * The only connection, taken past the gate, holds no place: the first borrower through the gate waits inside
     * HikariCP, the second at the gate behind it and then inside HikariCP under the gate's deadline, each refused at
     * the connection timeout, not after a second wait inside HikariCP.
     */
    @Test
    void theGatesWaitAndHikarisWaitTogetherStayWithinTheConnectionTimeout() throws Exception {
        // a long timeout, so that a second wait inside HikariCP (19 s more) is far beyond the bound
        long timeoutMillis = 20_000;
        ManagedHikariDataSource dataSource = pools.build("total", 1, timeoutMillis);
        HikariDataSource hikari = hikari(dataSource);
        BorrowGate gate = pools.gate("total");
        try (Connection outsideTheGate = hikari.getConnection()) {
            assertThat(gate.freePlaces()).isEqualTo(1);
            CompletableFuture<Long> first = timedBorrow(dataSource);
            await("the first borrower waits inside HikariCP",
                () -> hikari.getHikariPoolMXBean().getThreadsAwaitingConnection() == 1);
            TimeUnit.MILLISECONDS.sleep(1_000);
            long started = System.nanoTime();
            CompletableFuture<Long> second = timedBorrow(dataSource);

            long firstWaited = first.get(60, TimeUnit.SECONDS);
            assertThat(firstWaited).as("the first waited %d ms (the timeout: %d ms)", firstWaited, timeoutMillis)
                .isBetween(timeoutMillis, timeoutMillis + 5_000);
            long secondWaited = second.get(60, TimeUnit.SECONDS);
            long secondMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            // the second waited 20 s in all, not 19 s at the gate and 20 s more inside HikariCP (39 s)
            assertThat(secondWaited).as("the second waited %d ms (the timeout: %d ms)", secondWaited, timeoutMillis)
                .isBetween(timeoutMillis, timeoutMillis + 5_000);
            assertThat(secondMillis).as("the second's borrow returned after %d ms (the timeout: %d ms)", secondMillis,
                timeoutMillis).isLessThan(timeoutMillis + 5_000);
            assertThat(outsideTheGate.isValid(1)).isTrue();
        }
        assertThat(gate.freePlaces()).isEqualTo(1);
    }

    @Test
    void aBorrowerWhoseTimeRunsOutAfterQueueingKeepsNoInterruptAndBorrowsAgain() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("deadline", 1, 1_000);
        HikariDataSource hikari = hikari(dataSource);
        BorrowGate gate = pools.gate("deadline");
        long timeoutsBefore = metrics.meter("deadline.pool.ConnectionTimeoutRate").getCount();
        try (Connection outsideTheGate = hikari.getConnection()) {
            CompletableFuture<Long> first = timedBorrow(dataSource);
            await("the first borrower waits inside HikariCP",
                () -> hikari.getHikariPoolMXBean().getThreadsAwaitingConnection() == 1);
            TimeUnit.MILLISECONDS.sleep(500);
            long started = System.nanoTime();

            // queues behind the first, then alone until its own timeout
            assertThatThrownBy(dataSource::getConnection)
                .isExactlyInstanceOf(SQLTransientConnectionException.class)
                .hasMessageMatching("deadline - Connection is not available, request timed out after \\d+ms "
                    + "\\(total=1, active=1, idle=0, waiting=\\d+\\)")
                .hasNoCause();
            long refusedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(refusedMillis).as("refused after %d ms (the timeout: 1,000 ms)", refusedMillis)
                .isBetween(1_000L, 3_000L);
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
            first.get(20, TimeUnit.SECONDS);
        }
        // each refusal counted once, by the core
        assertThat(metrics.meter("deadline.pool.ConnectionTimeoutRate").getCount()).isEqualTo(timeoutsBefore + 2);
        try (Connection again = dataSource.getConnection()) {
            assertThat(again.isValid(1)).isTrue();
        }
        assertThat(gate.freePlaces()).isEqualTo(1);
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

    /**
     * A borrower that passed the gate while HikariCP can open no connection (its user's password changed, the only
     * connection evicted) fails inside HikariCP with HikariCP's own timeout, counted once, and gives its place back.
     */
    @Test
    void aBorrowThatFailsInsideHikariAfterPassingTheGateGivesItsPlaceBack() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("failed-inside", 1, 1_000);
        HikariDataSource hikari = hikari(dataSource);
        BorrowGate gate = pools.gate("failed-inside");
        long timeoutsBefore = metrics.meter("failed-inside.pool.ConnectionTimeoutRate").getCount();
        Connection only = dataSource.getConnection();
        Connection hikariConnection = pools.hikariConnectionOfLastBorrow();
        try (Statement statement = only.createStatement()) {
            statement.execute("ALTER USER SA SET PASSWORD 'changed'");
        }
        hikari.evictConnection(hikariConnection);
        only.close();
        // HikariCP closed the borrowed connection itself: its place comes back with its close
        await("the evicted connection's place is back", () -> gate.freePlaces() == 1);

        long started = System.nanoTime();
        assertThatThrownBy(dataSource::getConnection)
            .isInstanceOf(SQLTransientConnectionException.class)
            .hasMessageStartingWith("failed-inside - Connection is not available, request timed out after");
        long refusedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(refusedMillis).as("refused after %d ms (the timeout: 1,000 ms)", refusedMillis)
            .isBetween(1_000L, 3_000L);

        assertThat(gate.freePlaces()).isEqualTo(1);
        assertThat(gate.waiting()).isZero();
        assertThat(metrics.meter("failed-inside.pool.ConnectionTimeoutRate").getCount())
            .isEqualTo(timeoutsBefore + 1);
    }

    @Test
    void aPoolResizedAtRuntimeGetsAPlacePerConnection() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("resized", 2, 1_000);
        HikariDataSource hikari = hikari(dataSource);

        hikari.getHikariConfigMXBean().setMaximumPoolSize(3);
        FairPools.assertServesExactly(dataSource, pools.gate("resized"), 3);
        hikari.getHikariConfigMXBean().setMaximumPoolSize(1);
        FairPools.assertServesExactly(dataSource, pools.gate("resized"), 1);
    }

    @Test
    void stopRemovesTheGatesMetricsSoTheNameCanBeBuiltAgain() throws Exception {
        ManagedHikariDataSource first = pools.build("gate-rebuilt", 1, 1_000);
        assertThat(metrics.getNames()).contains("gate-rebuilt.pool.GateWait", "gate-rebuilt.pool.GateWaiting");

        first.stop();
        assertThat(metrics.getNames()).noneMatch(name -> name.startsWith("gate-rebuilt."));

        ManagedHikariDataSource second = pools.build("gate-rebuilt", 1, 1_000);
        try (Connection connection = second.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }
        assertThat(metrics.getNames()).contains("gate-rebuilt.pool.GateWait", "gate-rebuilt.pool.GateWaiting");
    }

    /**
     * A borrower still queued when the pool stops is let through at once to HikariCP's refusal of a closed pool,
     * rather than waiting out its timeout (20 s here; the stop's drain gives the held connection 1 s).
     */
    @Test
    void aBorrowerQueuedWhenThePoolStopsIsRefusedAtOnce() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("stopped", 1, 1_000);
        BorrowGate gate = pools.gate("stopped");
        hikari(dataSource).getHikariConfigMXBean().setConnectionTimeout(20_000);
        Connection neverReturned = dataSource.getConnection();
        CompletableFuture<SQLException> queued = CompletableFuture.supplyAsync(() -> {
            try (Connection unexpected = dataSource.getConnection()) {
                throw new AssertionError("got a connection: " + unexpected);
            } catch (SQLException e) {
                return e;
            }
        }, threads);
        await("the borrower queues", () -> gate.waiting() == 1);

        long started = System.nanoTime();
        dataSource.stop();
        SQLException refusal = queued.get(20, TimeUnit.SECONDS);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertThat((Throwable) refusal).isNotInstanceOf(SQLTransientConnectionException.class);
        assertThat(refusal.getMessage()).contains("has been closed");
        assertThat(millis).as("ms from the stop to the refusal").isLessThan(10_000L);
        neverReturned.close();
    }

    @Test
    void anInterruptedBorrowerStopsWaitingAndLeavesItsPlace() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("interrupted", 1, 20_000);
        BorrowGate gate = pools.gate("interrupted");
        try (Connection held = dataSource.getConnection()) {
            Thread borrower = Thread.currentThread();
            CompletableFuture<Void> interrupter = CompletableFuture.runAsync(() -> {
                try {
                    await("the borrower queues", () -> gate.waiting() == 1);
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
        assertThat(gate.freePlaces()).isEqualTo(1);
        assertThat(gate.waiting()).isZero();
    }
}
