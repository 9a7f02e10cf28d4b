package io.github.dropwizardhikari.fairborrowing;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.metrics.IMetricsTracker;
import io.github.dropwizardhikari.PoolHooks;
import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The fair borrow gate of one running pool: a fair {@link Semaphore} with one place per connection, taken before
 * HikariCP's {@code getConnection()} and given back when HikariCP records the connection's return.
 *
 * <p>HikariCP 7.1 records a return ({@code recordConnectionUsageMillis}) in {@code recycle()}, before the
 * connection goes back to its bag, whichever object the application closed it through: the connection itself or a
 * statement's {@code getConnection()}. So the connections handed out are HikariCP's own, and no thread is ever
 * interrupted: a borrower waits at the gate for at most the pool's connection timeout, then, like any HikariCP
 * borrower, inside HikariCP (only when HikariCP has no connection to give for a place: the database is down, or
 * connections are being replaced).</p>
 *
 * <p>A borrowed connection that HikariCP closes itself (a fatal SQL state, {@code evictConnection} while borrowed)
 * is never recycled, so its return is never recorded. Once a second, and after each refusal, the gate counts the
 * places held against HikariCP's borrowed connections and the borrowers between gate and HikariCP, and gives back
 * the places no borrow holds, as far as three counts 20 ms apart agree.</p>
 *
 * <p>A borrow that did not pass the gate (HikariCP's own {@code ConnectivityCheck}, or the {@link HikariDataSource}
 * used directly) is recorded on its return all the same, so it takes a place when HikariCP records its borrow,
 * which it does on the borrowing thread; a borrow through the gate is marked on that thread while it is inside
 * HikariCP. Without that, every such borrow would add a place for good. HikariCP records a borrow that times out
 * too, then the timeout, on the same thread: a place taken for it goes back at the timeout.</p>
 *
 * <p>Figures: {@code Wait} includes the time queued at the gate, {@code PendingConnections} the borrowers queued at
 * it, and a borrower refused at the gate counts in {@code ConnectionTimeoutRate}. In detail,
 * {@code <pool>.pool.GateWaiting} (gauge: borrowers queued now) and {@code <pool>.pool.GateWait} (timer: each queued
 * borrower's time at the gate).</p>
 */
final class BorrowGate implements PoolHooks {
    private static final Long AT_ONCE = 0L;
    // on a thread whose last borrow HikariCP recorded without a mark: it took a place (negative, unlike a mark)
    private static final Long TOOK_PLACE = -1L;
    private static final IMetricsTracker RECORDS_NOTHING = new IMetricsTracker() {
    };
    // more places than any pool has borrowers, far from the semaphore's limit of Integer.MAX_VALUE
    private static final int OPEN_WIDE = 1 << 30;
    private static final long SWEEP_MILLIS = 1_000;
    private static final long SAMPLE_MILLIS = 20;
    private static final int SAMPLES = 3;

    private final String poolName;
    private final MetricRegistry metrics;
    private final Places places;
    private final long configuredTimeoutMillis;
    private final Timer gateWait;
    // on the borrowing thread while it is inside HikariCP: the nanoseconds queued at the gate; or TOOK_PLACE
    private final ThreadLocal<Long> passed = new ThreadLocal<>();
    // borrowers holding a place while inside HikariCP: striped, as every borrow counts here
    private final LongAdder inFlight = new LongAdder();
    private final ScheduledThreadPoolExecutor sweeper;

    private volatile IMetricsTracker recording = RECORDS_NOTHING;
    @Nullable
    private volatile HikariDataSource pool;
    // written under this object's lock
    private volatile int size;

    BorrowGate(String poolName, int size, long timeoutMillis, MetricRegistry metrics) {
        this.poolName = poolName;
        this.metrics = metrics;
        this.places = new Places(size);
        this.size = size;
        this.configuredTimeoutMillis = timeoutMillis;
        this.gateWait = metrics.register(waitName(), new Timer(LockFreeExponentiallyDecayingReservoir.builder()
            .build()));
        metrics.register(waitingName(), (Gauge<Integer>) this::waiting);
        // its thread starts with the pool
        this.sweeper = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, poolName + ":fair-borrowing");
            thread.setDaemon(true);
            return thread;
        });
    }

    private String waitName() {
        return MetricRegistry.name(poolName, "pool", "GateWait");
    }

    private String waitingName() {
        return MetricRegistry.name(poolName, "pool", "GateWaiting");
    }

    /** @return HikariCP's tracker as the gate sees it: every record reaches {@code recording} */
    IMetricsTracker tracker(IMetricsTracker recording) {
        this.recording = recording;
        return new Tracker(recording);
    }

    @Override
    public void started(HikariDataSource pool) {
        this.pool = pool;
        followResize();
        sweeper.scheduleWithFixedDelay(this::sweep, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * Takes a place, waiting in arrival order if need be, then a connection from the rest of the borrow.
     *
     * @throws SQLTransientConnectionException when no place came within the connection timeout
     */
    @Override
    public Connection borrow(Borrow next) throws SQLException {
        followResize();
        passed.set(enter());
        inFlight.increment();
        boolean failed = true;
        try {
            Connection connection = next.get();
            failed = false;
            return connection;
        } finally {
            passed.remove();
            inFlight.decrement();
            if (failed) {
                // no connection: HikariCP recorded no borrow, or a timeout, so no return will give the place back
                places.release();
            }
        }
    }

    /** @return the nanoseconds this borrower queued at the gate */
    private Long enter() throws SQLException {
        try {
            // the timed form with no wait honours the queue, where tryAcquire() would jump it; a free place costs
            // no clock reading
            if (places.tryAcquire(0, TimeUnit.NANOSECONDS)) {
                return AT_ONCE;
            }
            long start = System.nanoTime();
            boolean placed = places.tryAcquire(timeoutMillis(), TimeUnit.MILLISECONDS);
            long queued = System.nanoTime() - start;
            gateWait.update(queued, TimeUnit.NANOSECONDS);
            if (!placed) {
                recording.recordConnectionTimeout();
                // a place lost to a connection HikariCP closed is found now rather than at the next sweep
                sweepSoon();
                throw refused(queued);
            }
            return queued;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException(poolName + " - Interrupted during connection acquisition", e);
        }
    }

    private long timeoutMillis() {
        HikariDataSource running = pool;
        return running == null ? configuredTimeoutMillis : running.getHikariConfigMXBean().getConnectionTimeout();
    }

    /** HikariCP's own timeout: its type and message, with the gate's queue among the waiting. */
    private SQLTransientConnectionException refused(long queuedNanos) {
        HikariDataSource running = pool;
        HikariPoolMXBean counts = running == null ? null : running.getHikariPoolMXBean();
        String message = poolName + " - Connection is not available, request timed out after "
            + TimeUnit.NANOSECONDS.toMillis(queuedNanos) + "ms";
        if (counts != null) {
            message += " (total=" + counts.getTotalConnections() + ", active=" + counts.getActiveConnections()
                + ", idle=" + counts.getIdleConnections() + ", waiting="
                + (counts.getThreadsAwaitingConnection() + waiting()) + ")";
        }
        return new SQLTransientConnectionException(message);
    }

    /**
     * HikariCP is recording a borrow, or a borrow that timed out, on the borrowing thread.
     *
     * @return the nanoseconds the borrower queued at the gate
     */
    private long acquired() {
        Long queued = passed.get();
        if (queued != null && queued >= 0) {
            return queued;
        }
        // a borrow that did not pass the gate: its return gives a place back all the same
        places.take();
        passed.set(TOOK_PLACE);
        return 0;
    }

    /** HikariCP is recording a timeout, on the thread whose borrow it has just recorded. */
    private void timedOut() {
        if (passed.get() == TOOK_PLACE) {
            passed.remove();
            places.release();
        }
    }

    /** HikariCP is recording a return, before the connection goes back to its bag. */
    private void returned() {
        places.release();
        followResize();
    }

    private void sweepSoon() {
        if (!sweeper.isShutdown() && sweeper.getQueue().size() < 2) {
            sweeper.execute(this::sweep);
        }
    }

    /** Gives back the places of borrowed connections that HikariCP closed itself, if three readings agree. */
    void sweep() {
        int lost = lostPlaces();
        try {
            for (int sample = 1; sample < SAMPLES && lost > 0; sample++) {
                TimeUnit.MILLISECONDS.sleep(SAMPLE_MILLIS);
                lost = Math.min(lost, lostPlaces());
            }
        } catch (InterruptedException e) {
            // the pool is stopping
            return;
        }
        if (lost > 0) {
            places.release(lost);
        }
    }

    /**
     * Places held less HikariCP's borrowed connections less the borrowers between gate and HikariCP. The three
     * figures cannot be read at one instant: a borrow or return between two readings can move the count, so it is
     * read twice, in two orders, and the lower count is taken.
     */
    private synchronized int lostPlaces() {
        HikariDataSource running = pool;
        HikariPoolMXBean counts = running == null ? null : running.getHikariPoolMXBean();
        if (counts == null) {
            return 0;
        }
        long borrowed = counts.getActiveConnections();
        long held = size - places.availablePermits();
        long lost = held - inFlight.sum() - borrowed;
        long entering = inFlight.sum();
        held = size - places.availablePermits();
        lost = Math.min(lost, held - entering - counts.getActiveConnections());
        return (int) Math.max(0, lost);
    }

    /** Follows a runtime change of {@code maxSize} (JMX, a resize task) at the next borrow or return. */
    private void followResize() {
        HikariDataSource running = pool;
        if (running != null && running.getHikariConfigMXBean().getMaximumPoolSize() != size) {
            resize(running.getHikariConfigMXBean().getMaximumPoolSize());
        }
    }

    private synchronized void resize(int newSize) {
        if (newSize > size) {
            places.release(newSize - size);
        } else if (newSize < size) {
            places.reducePermits(size - newSize);
        }
        size = newSize;
    }

    /** @return borrowers queued at the gate now */
    int waiting() {
        return places.getQueueLength();
    }

    /** @return the pool's size less the connections borrowed and not yet returned; negative after a shrink */
    int freePlaces() {
        return places.availablePermits();
    }

    @Override
    public void stopping() {
        sweeper.shutdownNow();
        metrics.remove(waitName());
        metrics.remove(waitingName());
    }

    /** Lets whoever still queues through, to HikariCP's own refusal of a closed pool. */
    @Override
    public void stopped() {
        places.release(OPEN_WIDE);
    }

    @Override
    public String toString() {
        return "BorrowGate{pool=" + poolName + ", places=" + size + ", free=" + freePlaces() + ", waiting="
            + waiting() + "}";
    }

    /** Every record goes on to HikariCP's tracker; borrows and returns move the gate's places first. */
    private final class Tracker implements IMetricsTracker {
        private final IMetricsTracker recording;

        Tracker(IMetricsTracker recording) {
            this.recording = recording;
        }

        @Override
        public void recordConnectionCreatedMillis(long connectionCreatedMillis) {
            recording.recordConnectionCreatedMillis(connectionCreatedMillis);
        }

        @Override
        public void recordConnectionAcquiredNanos(long elapsedAcquiredNanos) {
            recording.recordConnectionAcquiredNanos(elapsedAcquiredNanos + acquired());
        }

        @Override
        public void recordConnectionUsageMillis(long elapsedBorrowedMillis) {
            returned();
            recording.recordConnectionUsageMillis(elapsedBorrowedMillis);
        }

        @Override
        public void recordConnectionTimeout() {
            timedOut();
            recording.recordConnectionTimeout();
        }

        @Override
        public void close() {
            recording.close();
        }
    }

    /**
     * A fair semaphore whose places can also be taken without waiting, below zero if need be. It wakes its next
     * waiter only once the one before has run: on platform threads a contended pool turns over once per thread
     * wake-up. A queue that hands each place to a waiter of its own was faster there, but slower and with longer
     * waits on virtual threads (docs/fair-borrowing.md has both).
     */
    private static final class Places extends Semaphore {
        private static final long serialVersionUID = 1L;

        Places(int size) {
            super(size, true);
        }

        void take() {
            reducePermits(1);
        }

        @Override
        protected void reducePermits(int reduction) {
            super.reducePermits(reduction);
        }
    }
}
