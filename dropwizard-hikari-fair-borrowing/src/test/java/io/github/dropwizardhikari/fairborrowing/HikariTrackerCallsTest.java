package io.github.dropwizardhikari.fairborrowing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.metrics.IMetricsTracker;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static io.github.dropwizardhikari.fairborrowing.FairPools.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What HikariCP 7.1 tells its metrics tracker, and when, that the gate relies on: each fact CONTRIBUTING lists, on
 * a plain {@link HikariDataSource} over H2 with a tracker that writes down each call, its thread and the pool's
 * counts at that moment (no gate, no bundle), so that a HikariCP upgrade that changes one fails here.
 */
class HikariTrackerCallsTest {
    private static final String ACQUIRED = "recordConnectionAcquiredNanos";
    private static final String USAGE = "recordConnectionUsageMillis";
    private static final String TIMEOUT = "recordConnectionTimeout";
    private static final String CREATED = "recordConnectionCreatedMillis";
    private static final String ALIVE_BYPASS_WINDOW = "com.zaxxer.hikari.aliveBypassWindowMs";

    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final List<HikariDataSource> pools = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private volatile HikariPoolMXBean counts;

    @AfterEach
    void closeAll() throws Exception {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
        pools.forEach(HikariDataSource::close);
    }

    private HikariDataSource pool(String name, int size) throws InterruptedException {
        return pool(name, size, 250);
    }

    private HikariDataSource pool(String name, int size, long timeoutMillis) throws InterruptedException {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(BreakingDriver.url(name));
        config.setDriverClassName(BreakingDriver.class.getName());
        config.setUsername("sa");
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setConnectionTimeout(timeoutMillis);
        config.setMetricsTrackerFactory((poolName, stats) -> new WritingDown());
        HikariDataSource pool = new HikariDataSource(config);
        pools.add(pool);
        counts = pool.getHikariPoolMXBean();
        await("the pool is full", () -> counts.getIdleConnections() == size);
        calls.clear();
        return pool;
    }

    private List<Call> calls(String method) {
        return calls.stream().filter(call -> call.method().equals(method)).toList();
    }

    /** The borrow is recorded on the borrowing thread, before {@code getConnection()} returns, once it is lent. */
    @Test
    void aBorrowIsRecordedOnTheBorrowingThreadBeforeGetConnectionReturns() throws Exception {
        HikariDataSource pool = pool("acquired", 2);
        CompletableFuture<Thread> borrower = CompletableFuture.supplyAsync(() -> {
            try (Connection connection = pool.getConnection()) {
                assertThat(calls(ACQUIRED)).as("recorded by the time getConnection() returns").hasSize(1);
                return Thread.currentThread();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, threads);

        Thread borrowing = borrower.get(20, TimeUnit.SECONDS);
        Call acquired = calls(ACQUIRED).get(0);
        assertThat(acquired.thread()).isSameAs(borrowing);
        assertThat(acquired.active()).as("connections lent as the borrow is recorded").isEqualTo(1);
    }

    /**
     * The return is recorded on the thread that closes the connection, in its {@code close()}, while the connection
     * is still lent: it is back among the idle ones only after the record. However the application closes it
     * (through a statement's {@code getConnection()}, twice), it is recorded once.
     */
    @Test
    void aReturnIsRecordedOnTheClosingThreadBeforeTheConnectionIsBackInThePool() throws Exception {
        HikariDataSource pool = pool("returned", 1);
        Connection connection = pool.getConnection();
        Thread closer = CompletableFuture.supplyAsync(() -> {
            try {
                connection.createStatement().getConnection().close();
                connection.close();
                return Thread.currentThread();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, threads).get(20, TimeUnit.SECONDS);

        assertThat(calls(USAGE)).hasSize(1);
        Call usage = calls(USAGE).get(0);
        assertThat(usage.thread()).isSameAs(closer);
        assertThat(usage.active()).as("lent as its return is recorded").isEqualTo(1);
        assertThat(usage.idle()).as("idle as its return is recorded").isZero();
        assertThat(counts.getIdleConnections()).as("idle once close() returned").isEqualTo(1);
    }

    /**
     * A borrow that times out inside HikariCP is recorded as acquired, then as a timeout, both on the borrowing
     * thread; a borrower waiting inside HikariCP is counted as waiting, and no longer once it is lent a connection.
     */
    @Test
    void aBorrowThatTimesOutIsRecordedAsAcquiredThenTimedOutOnItsThread() throws Exception {
        HikariDataSource pool = pool("timeout", 1);
        try (Connection held = pool.getConnection()) {
            calls.clear();
            Thread borrower = CompletableFuture.supplyAsync(() -> {
                assertThatThrownBy(pool::getConnection).isInstanceOf(SQLTransientConnectionException.class);
                return Thread.currentThread();
            }, threads).get(20, TimeUnit.SECONDS);

            assertThat(calls).extracting(Call::method).containsExactly(ACQUIRED, TIMEOUT);
            assertThat(calls).extracting(Call::thread).containsOnly(borrower);
            assertThat(held.isValid(1)).isTrue();
        }
    }

    /**
     * Lending a connection it validates first (one idle past its bypass window, here every one), HikariCP counts the
     * borrower as waiting no longer and the connection as lent while it validates, before it records the borrow: a
     * borrow shows as waiting, then as a lent connection, and is recorded last.
     */
    @Test
    void aBorrowerLeavesTheWaitingCountWithAConnectionLentBeforeItsBorrowIsRecorded() throws Exception {
        System.setProperty(ALIVE_BYPASS_WINDOW, "-1");
        HikariDataSource pool;
        try {
            pool = pool("waiting", 1, 20_000);
        } finally {
            System.clearProperty(ALIVE_BYPASS_WINDOW);
        }
        Connection held = pool.getConnection();
        calls.clear();
        CompletableFuture<Connection> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return pool.getConnection();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }, threads);
        await("the borrower waits inside HikariCP", () -> counts.getThreadsAwaitingConnection() == 1);
        assertThat(counts.getActiveConnections()).isEqualTo(1);

        BreakingDriver.validationMillis = 2_000;
        try {
            held.close();
            await("the borrower has left the waiting count", () -> counts.getThreadsAwaitingConnection() == 0);
            assertThat(counts.getActiveConnections()).as("lent while HikariCP validates it").isEqualTo(1);
            assertThat(calls(ACQUIRED)).as("borrows recorded while HikariCP validates the connection").isEmpty();
            try (Connection lent = waiter.get(20, TimeUnit.SECONDS)) {
                assertThat(calls(ACQUIRED)).hasSize(1);
                assertThat(calls(ACQUIRED).get(0).waiting()).as("waiting as the borrow is recorded").isZero();
                assertThat(calls(ACQUIRED).get(0).active()).as("lent as the borrow is recorded").isEqualTo(1);
            }
        } finally {
            BreakingDriver.validationMillis = 0;
        }
    }

    /**
     * A lent connection that HikariCP closes itself (a fatal SQL state, {@code evictConnection}) is never recorded
     * as returned, not even when the application closes it; HikariCP tells the tracker nothing of it, and the proxy
     * of an evicted connection reads as open until closed. In a pool of fixed size HikariCP then opens a connection
     * in its stead, and records that.
     */
    @Test
    void aLentConnectionHikariClosesIsNeverRecordedAsReturnedAndIsReplaced() throws Exception {
        HikariDataSource pool = pool("closed-lent", 2);

        Connection evicted = pool.getConnection();
        pool.evictConnection(evicted);
        assertThat(evicted.isClosed()).as("the evicted connection's proxy, before the application closes it")
            .isFalse();
        closeAsHikariAllows(evicted);

        Connection broken = pool.getConnection();
        assertThatThrownBy(() -> broken.prepareStatement(BreakingDriver.BREAK)).isInstanceOf(SQLException.class);
        assertThat(broken.isClosed()).as("the broken connection's proxy").isTrue();
        broken.close();

        assertThat(calls(USAGE)).as("returns recorded").isEmpty();
        assertThat(counts.getActiveConnections()).isZero();
        await("HikariCP opened two connections in their stead", () -> calls(CREATED).size() == 2
            && counts.getTotalConnections() == 2);
        assertThat(calls).extracting(Call::method).containsOnly(ACQUIRED, CREATED);
    }

    /** An aborted connection is recorded as returned when the application closes it, once. */
    @Test
    void anAbortedConnectionIsRecordedAsReturnedWhenClosed() throws Exception {
        HikariDataSource pool = pool("aborted", 1);
        Connection connection = pool.getConnection();
        connection.abort(Runnable::run);
        assertThat(calls(USAGE)).isEmpty();
        closeAsHikariAllows(connection);
        closeAsHikariAllows(connection);
        assertThat(calls(USAGE)).hasSize(1);
    }

    private static void closeAsHikariAllows(Connection connection) {
        try {
            connection.close();
        } catch (SQLException e) {
            // the driver's connection is gone, which the caller knows
        }
    }

    /** One call to the tracker: which, on which thread, and HikariCP's counts as it was made. */
    private record Call(String method, Thread thread, int active, int idle, int waiting) {
    }

    /** A tracker that writes each call down. */
    private final class WritingDown implements IMetricsTracker {
        private void writeDown(String method) {
            HikariPoolMXBean now = counts;
            calls.add(new Call(method, Thread.currentThread(), now == null ? -1 : now.getActiveConnections(),
                now == null ? -1 : now.getIdleConnections(), now == null ? -1 : now.getThreadsAwaitingConnection()));
        }

        @Override
        public void recordConnectionCreatedMillis(long connectionCreatedMillis) {
            writeDown(CREATED);
        }

        @Override
        public void recordConnectionAcquiredNanos(long elapsedAcquiredNanos) {
            writeDown(ACQUIRED);
        }

        @Override
        public void recordConnectionUsageMillis(long elapsedBorrowedMillis) {
            writeDown(USAGE);
        }

        @Override
        public void recordConnectionTimeout() {
            writeDown(TIMEOUT);
        }
    }
}
