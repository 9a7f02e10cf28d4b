package io.github.dropwizardhikari.recovery;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Brings the pool back within one probe interval of the database accepting connections again, without a
 * restart, and without a storm of connection attempts while it is away.
 *
 * <p><b>Why it is needed.</b> HikariCP opens connections on a single thread ({@code <pool>:connection-adder}).
 * When an attempt fails, that thread sleeps and tries again, doubling the sleep each time up to 5 seconds, and
 * only that thread ever connects. After the database returns, the pool stays empty until the current sleep
 * ends: about a second after a 2 to 3 second outage, up to 5 seconds after a long one.</p>
 *
 * <p><b>How.</b> Every {@code interval} this class looks at the pool's own numbers
 * ({@link HikariPoolMXBean}). The pool is <em>stalled</em> when it has fewer connections than it wants (callers
 * are waiting, or it is below {@code minimumIdle}, and it is below {@code maximumPoolSize}) and no connection was
 * added since the last look. Only then, once per interval, it opens one connection of its own with the pool's
 * driver and credentials ({@link DatabaseProbe}) and closes it. When that succeeds, the database is back while
 * HikariCP still sleeps, so it</p>
 * <ol>
 *     <li>interrupts the connection-adder thread if, and only if, it is sleeping in HikariCP's back-off
 *     ({@code UtilityElf.quietlySleep} inside {@code PoolEntryCreator}). HikariCP's creator checks
 *     {@code Thread.interrupted()} before each attempt and ends, and the executor runs the next queued creator
 *     (one is queued for each waiting caller) at once, with a fresh back-off;</li>
 *     <li>when no caller is waiting (so no creator is queued), borrows and returns one connection, which makes
 *     HikariCP submit a creator that connects at once and then fills the pool to {@code minimumIdle} (not on a
 *     pool that allows suspension: a suspended pool would hold that borrow without a timeout).</li>
 * </ol>
 * <p>While the database is down this adds one connection attempt per interval to HikariCP's own (one every
 * 5 seconds after the first seconds); a healthy pool is never probed. If HikariCP's internals change (thread
 * name, back-off in {@code quietlySleep}), the interrupt finds nothing to do and the pool recovers as slowly
 * as HikariCP alone would; the integration tests measure the recovery time and fail then.</p>
 */
public final class OutageRecovery implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(OutageRecovery.class);
    private static final String SLEEPER_CLASS = "com.zaxxer.hikari.util.UtilityElf";
    private static final String SLEEPER_METHOD = "quietlySleep";
    private static final String CREATOR_CLASS = "com.zaxxer.hikari.pool.HikariPool$PoolEntryCreator";

    private final HikariDataSource pool;
    private final DatabaseProbe probe;
    private final String adderThreadName;
    private final ScheduledExecutorService timer;
    private final AtomicLong probes = new AtomicLong();
    private final AtomicLong wakeUps = new AtomicLong();
    private int lastTotal = -1;
    private boolean stalledBefore;
    @Nullable
    private String lastFailure;

    /**
     * @param pool       the running pool
     * @param probe      connects outside the pool
     * @param intervalMs how often the pool is looked at; while it is stalled, one probe per interval
     */
    public OutageRecovery(HikariDataSource pool, DatabaseProbe probe, long intervalMs) {
        this.pool = pool;
        this.probe = probe;
        this.adderThreadName = pool.getPoolName() + ":connection-adder";
        String threadName = pool.getPoolName() + ":recovery";
        this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
        timer.scheduleWithFixedDelay(this::check, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    /** @return how many probe connections were attempted */
    public long probes() {
        return probes.get();
    }

    /** @return how many times the pool was woken up after a successful probe */
    public long wakeUps() {
        return wakeUps.get();
    }

    private void check() {
        try {
            HikariPoolMXBean bean = pool.getHikariPoolMXBean();
            if (bean == null || pool.isClosed()) {
                return;
            }
            int total = bean.getTotalConnections();
            boolean wantsMore = total < pool.getMaximumPoolSize()
                && (bean.getThreadsAwaitingConnection() > 0 || total < pool.getMinimumIdle());
            boolean stalled = wantsMore && total <= lastTotal;
            lastTotal = total;
            // stalled on two looks in a row: a pool that is filling normally adds a connection every few ms
            boolean probe = stalled && stalledBefore;
            stalledBefore = stalled;
            if (probe && databaseAnswers()) {
                wakeUp(bean);
            }
        } catch (RuntimeException e) {
            LOGGER.warn("Pool {}: the outage recovery check failed", pool.getPoolName(), e);
        }
    }

    private boolean databaseAnswers() {
        probes.incrementAndGet();
        try {
            probe.connect();
            if (lastFailure != null) {
                LOGGER.info("Pool {}: the database accepts connections again; waking the pool up",
                    pool.getPoolName());
                lastFailure = null;
            }
            return true;
        } catch (SQLException e) {
            if (lastFailure == null) {
                LOGGER.info("Pool {}: cannot connect (SQLState {}); probing once every interval until the database "
                    + "accepts connections again", pool.getPoolName(), e.getSQLState());
            }
            lastFailure = e.getSQLState();
            if (lastFailure == null) {
                lastFailure = "unknown";
            }
            return false;
        }
    }

    private void wakeUp(HikariPoolMXBean bean) {
        wakeUps.incrementAndGet();
        Thread adder = findThread(adderThreadName);
        if (adder != null && sleepsInBackOff(adder)) {
            adder.interrupt();
        }
        // a suspended pool blocks borrowers without a timeout; with suspension allowed, only waiting callers
        // (whose creators are queued) bring the pool back
        if (bean.getThreadsAwaitingConnection() == 0 && !pool.isAllowPoolSuspension()) {
            try (Connection ignored = pool.getConnection()) {
                // borrowing makes HikariCP submit a connection creator; returning fills the pool
                LOGGER.debug("Pool {}: woke up", pool.getPoolName());
            } catch (SQLException e) {
                LOGGER.debug("Pool {}: the wake-up borrow failed", pool.getPoolName(), e);
            }
        }
    }

    static boolean sleepsInBackOff(Thread thread) {
        if (thread.getState() != Thread.State.TIMED_WAITING) {
            return false;
        }
        boolean sleeping = false;
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (SLEEPER_CLASS.equals(frame.getClassName()) && SLEEPER_METHOD.equals(frame.getMethodName())) {
                sleeping = true;
            } else if (sleeping && CREATOR_CLASS.equals(frame.getClassName())) {
                return true;
            }
        }
        return false;
    }

    @Nullable
    private static Thread findThread(String name) {
        ThreadGroup root = Thread.currentThread().getThreadGroup();
        while (root.getParent() != null) {
            root = root.getParent();
        }
        Thread[] threads = new Thread[root.activeCount() + 32];
        int count = root.enumerate(threads, true);
        for (int i = 0; i < count; i++) {
            if (name.equals(threads[i].getName())) {
                return threads[i];
            }
        }
        return null;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
