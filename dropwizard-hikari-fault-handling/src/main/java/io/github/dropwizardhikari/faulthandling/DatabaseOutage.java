package io.github.dropwizardhikari.faulthandling;

import io.github.dropwizardhikari.PoolHooks.Borrow;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the pool's own connection attempts say about the database: whether the last one failed, since when, and
 * whether a borrower can still gain by waiting.
 *
 * <p>Once a borrower has timed out during an outage, or while the pool has never connected, borrowers fail at once
 * with the cause, as Dropwizard's Tomcat pool does. A borrower of a pool that has never connected waits here, not
 * inside HikariCP, for the first attempt's outcome (at most the connection timeout), so a failed first attempt ends
 * its wait without touching its thread. HikariCP only connects for a waiting borrower or below
 * {@code minimumIdle}, so a background borrow of its own keeps the pool trying meanwhile.</p>
 */
final class DatabaseOutage implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(DatabaseOutage.class);

    private final String poolName;
    private final long retryIntervalMillis;
    private final long connectionTimeoutMillis;
    private final PoolMetrics metrics;
    private final AtomicInteger retrying = new AtomicInteger();
    private final AtomicBoolean waking = new AtomicBoolean();
    private final ExecutorService wakeUps;
    // counted down by the pool's first connection attempt, whatever its outcome
    private final CountDownLatch firstAttempt = new CountDownLatch(1);
    @Nullable
    private volatile Borrow wakeUp;
    private volatile Runnable onRecovered = () -> { };
    @Nullable
    private volatile SQLException failure;
    private volatile long failingSinceNanos;
    private volatile int failedAttempts;
    private volatile boolean borrowerTimedOut;
    private volatile boolean everConnected;

    DatabaseOutage(String poolName, long retryIntervalMillis, long connectionTimeoutMillis, PoolMetrics metrics) {
        this.poolName = poolName;
        this.retryIntervalMillis = retryIntervalMillis;
        this.connectionTimeoutMillis = connectionTimeoutMillis;
        this.metrics = metrics;
        this.wakeUps = Executors.newSingleThreadExecutor(runnable -> {
            Thread thread = new Thread(runnable, poolName + ":outage");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * @param poolBorrow borrows from HikariCP directly, to keep it trying while borrowers fail fast
     * @param whenBackUp runs when an attempt succeeds after failed ones, before the new connection is handed out
     */
    void started(Borrow poolBorrow, Runnable whenBackUp) {
        this.wakeUp = poolBorrow;
        this.onRecovered = whenBackUp;
    }

    void failed(SQLException e) {
        synchronized (this) {
            if (failure == null) {
                failingSinceNanos = System.nanoTime();
                failedAttempts = 0;
                LOGGER.warn("Pool {}: cannot connect to the database: {} (SQLState {}); trying again every {} ms, and "
                    + "the pool fills as soon as it answers", poolName, e.getMessage(), e.getSQLState(),
                    retryIntervalMillis);
            }
            failure = e;
            failedAttempts++;
        }
        firstAttempt.countDown();
    }

    void connected() {
        boolean recovered;
        synchronized (this) {
            recovered = failure != null;
            if (recovered) {
                LOGGER.info("Pool {}: the database accepts connections again, after {} ms and {} failed attempts",
                    poolName, millisSince(failingSinceNanos), failedAttempts);
            }
            failure = null;
            borrowerTimedOut = false;
            everConnected = true;
        }
        firstAttempt.countDown();
        if (recovered) {
            onRecovered.run();
        }
    }

    void retrying(boolean inLoop) {
        retrying.addAndGet(inLoop ? 1 : -1);
    }

    /** @return why the pool cannot connect, while its last attempt failed */
    Optional<String> knownCause() {
        SQLException current = failure;
        if (current == null) {
            return Optional.empty();
        }
        keepTrying();
        return Optional.of(describe(current));
    }

    /**
     * Borrows, or fails at once while waiting cannot help; a timeout during an outage carries its cause. Every
     * failure is counted once: HikariCP counts the timeouts it raises (HikariCP 7.1: its
     * {@code SQLTransientConnectionException}), this class the rest.
     */
    Connection borrow(Borrow borrow) throws SQLException {
        refuseWhileWaitingCannotHelp();
        if (!everConnected && firstAttempt.getCount() > 0) {
            long started = System.nanoTime();
            awaitFirstAttempt();
            return metrics.borrowAfterWaitingOutside(System.nanoTime() - started, () -> borrowNamingTheCause(borrow));
        }
        return borrowNamingTheCause(borrow);
    }

    private void refuseWhileWaitingCannotHelp() throws SQLTransientConnectionException {
        SQLException current = failure;
        if (current != null && (borrowerTimedOut || !everConnected)) {
            keepTrying();
            String why = everConnected ? "a borrower has already waited its whole timeout for it"
                : "the pool has not connected since it started";
            throw refused(new SQLTransientConnectionException(poolName + " - Connection is not available: "
                + describe(current) + "; " + why, current.getSQLState(), current.getErrorCode(), current));
        }
    }

    /** Waits until the pool's first attempt answers, not for the whole timeout when it fails. */
    private void awaitFirstAttempt() throws SQLException {
        keepTrying();
        try {
            if (!metrics.awaitOutside(firstAttempt, connectionTimeoutMillis)) {
                throw refused(new SQLTransientConnectionException(poolName + " - Connection is not available, "
                    + "request timed out after " + connectionTimeoutMillis + "ms; the pool's first attempt has not "
                    + "answered"));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw refused(new SQLTransientConnectionException(poolName + " - interrupted while waiting for the "
                + "pool's first connection", "08001", e));
        }
        refuseWhileWaitingCannotHelp();
    }

    private SQLTransientConnectionException refused(SQLTransientConnectionException failure) {
        metrics.borrowFailed();
        return failure;
    }

    private Connection borrowNamingTheCause(Borrow borrow) throws SQLException {
        try {
            return borrow.get();
        } catch (SQLTransientConnectionException e) {
            SQLException cause = failure;
            if (cause == null) {
                throw e;
            }
            borrowerTimedOut = true;
            if (e.getCause() != null) {
                throw e;
            }
            SQLTransientConnectionException named = new SQLTransientConnectionException(e.getMessage() + "; "
                + describe(cause), cause.getSQLState(), cause.getErrorCode(), cause);
            named.setNextException(cause);
            throw named;
        } catch (SQLException | RuntimeException e) {
            // a suspended pool's refusal, an interrupted borrow: HikariCP counts none of them
            metrics.borrowFailed();
            throw e;
        }
    }

    private void keepTrying() {
        Borrow poolBorrow = wakeUp;
        if (poolBorrow == null || retrying.get() > 0 || !waking.compareAndSet(false, true)) {
            return;
        }
        try {
            wakeUps.execute(() -> {
                try (Connection ignored = metrics.inBackground(poolBorrow)) {
                    LOGGER.debug("Pool {}: connected again", poolName);
                } catch (SQLException e) {
                    LOGGER.debug("Pool {}: still cannot connect", poolName, e);
                } finally {
                    waking.set(false);
                }
            });
        } catch (RejectedExecutionException e) {
            // closed: the pool is stopping
            waking.set(false);
        }
    }

    private String describe(SQLException cause) {
        return "the database has refused every connection attempt for " + millisSince(failingSinceNanos) + " ms ("
            + failedAttempts + " attempts; last: " + cause.getMessage() + ", SQLState " + cause.getSQLState() + ")";
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    /** No new background borrow; one in progress ends with HikariCP's answer, as the pool closes. */
    @Override
    public void close() {
        wakeUps.shutdown();
    }
}
