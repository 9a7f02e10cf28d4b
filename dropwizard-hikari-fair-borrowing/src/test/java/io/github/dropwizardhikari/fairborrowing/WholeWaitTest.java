package io.github.dropwizardhikari.fairborrowing;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static io.github.dropwizardhikari.fairborrowing.FairPools.await;
import static io.github.dropwizardhikari.fairborrowing.FairPools.hikari;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A borrower waits {@code maxWaitForConnection} in all, at the gate and inside HikariCP together, as with Tomcat's
 * fair queue, in the cases where a borrower that queued for its place then finds no connection in HikariCP: it is
 * refused with HikariCP's own timeout at its time, not after a second wait inside HikariCP, on its own thread.
 */
class WholeWaitTest {
    private static final long TIMEOUT_MILLIS = 5_000;
    // how long the borrower queues before it gets its place: a second wait would end 8 s after it arrived
    private static final long QUEUED_MILLIS = 3_000;
    // what a loaded 2-core machine may add to the timeout
    private static final long LATE_MILLIS = 2_000;
    private static final String ALIVE_BYPASS_WINDOW = "com.zaxxer.hikari.aliveBypassWindowMs";
    private static final String REFUSAL = " - Connection is not available, request timed out after \\d+ms "
        + "\\(total=\\d, active=\\d, idle=\\d, waiting=\\d+\\)";

    private final FairPools pools = new FairPools();
    private final MetricRegistry metrics = pools.metrics;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stopAll() throws Exception {
        pools.close();
        threads.shutdownNow();
        assertThat(threads.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    }

    /**
     * The queue's first borrower gets its place when the only connection comes back, but a borrow that skipped the
     * gate (HikariCP's data source used directly), already waiting inside HikariCP, takes that connection (and
     * validates it for half a second) and keeps it. The borrower waits inside HikariCP under the gate's deadline
     * and is refused at its timeout, counted once; nothing is left waiting inside HikariCP.
     */
    @Test
    void aBorrowerWhoseConnectionABorrowPastTheGateTookWaitsTheTimeoutInAll() throws Exception {
        HikariDataSourceFactory factory = pools.factory("skipped", 1, TIMEOUT_MILLIS);
        factory.setUrl(BreakingDriver.url("skipped"));
        factory.setDriverClass(BreakingDriver.class.getName());
        ManagedHikariDataSource dataSource = pools.buildStopped("skipped", factory);
        // HikariCP validates every connection it lends, not only those idle for half a second
        System.setProperty(ALIVE_BYPASS_WINDOW, "-1");
        try {
            dataSource.start();
        } finally {
            System.clearProperty(ALIVE_BYPASS_WINDOW);
        }
        HikariDataSource hikari = hikari(dataSource);
        HikariPoolMXBean bean = hikari.getHikariPoolMXBean();
        BorrowGate gate = pools.gate("skipped");
        Gauge<?> pending = metrics.getGauges().get("skipped.pool.PendingConnections");
        long timeoutsBefore = metrics.meter("skipped.pool.ConnectionTimeoutRate").getCount();

        Connection first = dataSource.getConnection();
        long started = System.nanoTime();
        CompletableFuture<Outcome> queued = borrow(dataSource);
        await("the borrower queues", () -> gate.waiting() == 1);
        CompletableFuture<Connection> direct = CompletableFuture.supplyAsync(() -> {
            try {
                return hikari.getConnection();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, threads);
        await("the direct borrow waits inside HikariCP", () -> bean.getThreadsAwaitingConnection() == 1);
        assertThat(pending.getValue()).as("PendingConnections: the queued borrower and the direct one").isEqualTo(2);
        sleepUntil(started, QUEUED_MILLIS);
        BreakingDriver.validationMillis = 500;
        Connection taken;
        try {
            first.close();
            taken = direct.get(20, TimeUnit.SECONDS);
        } finally {
            BreakingDriver.validationMillis = 0;
        }

        Outcome outcome = queued.get(20, TimeUnit.SECONDS);
        assertWithinTheTimeout(outcome);
        assertThat((Throwable) outcome.refusal()).as("the borrower that lost the connection to the direct borrow")
            .isExactlyInstanceOf(SQLTransientConnectionException.class)
            .hasMessageMatching("skipped" + REFUSAL)
            .hasNoCause();
        assertThat(gate.underDeadline()).as("borrows under the gate's deadline").isEqualTo(1);
        assertThat(outcome.interrupted()).as("the borrower's interrupt flag after the refusal").isFalse();
        assertThat(metrics.meter("skipped.pool.ConnectionTimeoutRate").getCount()).isEqualTo(timeoutsBefore + 1);
        assertThat(bean.getThreadsAwaitingConnection()).as("threads inside HikariCP").isEqualTo(0);
        assertThat(pending.getValue()).as("PendingConnections once the borrower was refused").isEqualTo(0);

        taken.close();
        await("every place is back", () -> gate.freePlaces() == 1);
        assertThat(metrics.meter("skipped.pool.ConnectionTimeoutRate").getCount()).isEqualTo(timeoutsBefore + 1);
        // the first borrow and the direct one: the refused borrower's is no borrower's wait
        assertThat(metrics.timer("skipped.pool.Wait").getCount()).isEqualTo(2);
        hikari.getHikariConfigMXBean().setConnectionTimeout(1_000);
        FairPools.assertServesExactly(dataSource, gate, 1);
    }

    /**
     * The queue's first borrower gets its place when the only connection, evicted while borrowed, is closed, but
     * HikariCP cannot open another (the user's password changed): the borrower is refused at its timeout, not after a
     * second wait inside HikariCP, counted once.
     */
    @Test
    void aBorrowerWhoQueuedWhileThePoolCannotOpenAConnectionWaitsTheTimeoutInAll() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("cannot-open", 1, TIMEOUT_MILLIS);
        HikariDataSource hikari = hikari(dataSource);
        HikariPoolMXBean bean = hikari.getHikariPoolMXBean();
        BorrowGate gate = pools.gate("cannot-open");
        Gauge<?> pending = metrics.getGauges().get("cannot-open.pool.PendingConnections");
        long timeoutsBefore = metrics.meter("cannot-open.pool.ConnectionTimeoutRate").getCount();

        Connection only = dataSource.getConnection();
        Connection hikariConnection = pools.hikariConnectionOfLastBorrow();
        try (Statement statement = only.createStatement()) {
            statement.execute("ALTER USER SA SET PASSWORD 'changed'");
        }
        long started = System.nanoTime();
        CompletableFuture<Outcome> queued = borrow(dataSource);
        await("the borrower queues", () -> gate.waiting() == 1);
        sleepUntil(started, QUEUED_MILLIS);
        hikari.evictConnection(hikariConnection);
        only.close();

        Outcome outcome = queued.get(20, TimeUnit.SECONDS);
        assertWithinTheTimeout(outcome);
        assertThat((Throwable) outcome.refusal()).as("the borrower that passed the gate with no connection to get")
            .isExactlyInstanceOf(SQLTransientConnectionException.class)
            .hasMessageMatching("cannot-open" + REFUSAL);
        assertThat(gate.underDeadline()).as("borrows under the gate's deadline").isEqualTo(1);
        assertThat(outcome.interrupted()).as("the borrower's interrupt flag after the refusal").isFalse();
        assertThat(metrics.meter("cannot-open.pool.ConnectionTimeoutRate").getCount())
            .isEqualTo(timeoutsBefore + 1);
        assertThat(bean.getThreadsAwaitingConnection()).as("threads inside HikariCP").isEqualTo(0);
        assertThat(pending.getValue()).as("PendingConnections once the borrower was refused").isEqualTo(0);

        assertThat(gate.freePlaces()).isEqualTo(1);
        assertThat(metrics.meter("cannot-open.pool.ConnectionTimeoutRate").getCount())
            .isEqualTo(timeoutsBefore + 1);
        assertThat(metrics.timer("cannot-open.pool.Wait").getCount()).isEqualTo(1);
        assertThat(gate.waiting()).isZero();
    }

    /** Borrowers that queue on a pool with a connection for every place need no deadline. */
    @Test
    void queuedBorrowersOfAHealthyPoolNeedNoHelper() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("healthy", 2, 20_000);
        BorrowGate gate = pools.gate("healthy");
        CompletableFuture<?>[] borrowers = new CompletableFuture<?>[8];
        // both places taken until every borrower waits at the gate: in a warm JVM, borrowers that start one by one
        // may each finish before the next begins, and none would queue
        Connection first = dataSource.getConnection();
        Connection second = dataSource.getConnection();
        for (int i = 0; i < borrowers.length; i++) {
            borrowers[i] = CompletableFuture.runAsync(() -> {
                for (int cycle = 0; cycle < 200; cycle++) {
                    try (Connection connection = dataSource.getConnection()) {
                        assertThat(connection.isValid(1)).isTrue();
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }, threads);
        }
        await("every borrower queues", () -> gate.waiting() == borrowers.length);
        first.close();
        second.close();
        CompletableFuture.allOf(borrowers).get(60, TimeUnit.SECONDS);
        assertThat(metrics.timer("healthy.pool.GateWait").getCount()).as("borrows that queued")
            .isGreaterThanOrEqualTo(borrowers.length);
        // a borrower that comes back the moment a connection is returned may find it not yet in HikariCP's bag,
        // and a deadline then is correct but slower: never the rule (CI's quiet runs saw 11-12% of them)
        assertThat(gate.underDeadline()).as("borrows under a deadline, of 1,600").isLessThan(800);
        assertThat(gate.freePlaces()).isEqualTo(2);
    }

    private CompletableFuture<Outcome> borrow(ManagedHikariDataSource dataSource) {
        return CompletableFuture.supplyAsync(() -> {
            long started = System.nanoTime();
            try (Connection connection = dataSource.getConnection()) {
                return new Outcome(millisSince(started), null, Thread.interrupted());
            } catch (SQLException e) {
                return new Outcome(millisSince(started), e, Thread.interrupted());
            }
        }, threads);
    }

    /** Refused at the timeout, never early, late only by what a loaded machine adds; the message says the wait. */
    private static void assertWithinTheTimeout(Outcome outcome) {
        assertThat((Throwable) outcome.refusal()).as("the borrower's refusal").isNotNull();
        assertThat(outcome.millis()).as("refused after %d ms (the timeout: %d ms)", outcome.millis(), TIMEOUT_MILLIS)
            .isBetween(TIMEOUT_MILLIS, TIMEOUT_MILLIS + LATE_MILLIS);
        String reported = outcome.refusal().getMessage().replaceAll(".*timed out after (\\d+)ms.*", "$1");
        assertThat(Long.parseLong(reported)).as("the wait the message reports").isBetween(TIMEOUT_MILLIS,
            outcome.millis());
    }

    private static void sleepUntil(long startedNanos, long millis) throws InterruptedException {
        long left = millis - millisSince(startedNanos);
        if (left > 0) {
            TimeUnit.MILLISECONDS.sleep(left);
        }
    }

    private static long millisSince(long startedNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
    }

    /** How a borrow ended: after how long, its refusal if it was refused, and whether its thread was interrupted. */
    private record Outcome(long millis, @Nullable SQLException refusal, boolean interrupted) {
    }
}
