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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The fair borrow gate of one running pool: a fair semaphore with one place per connection, taken before the rest of
 * the borrow, on the borrower's thread, and given back at the connection's return, which the core tells whoever
 * closes the connection it lent ({@link PoolHooks#returned}); a connection closed another way gives its place back
 * when a borrower would otherwise queue ({@link #releaseClosed}). No thread borrows for another, so HikariCP's
 * leak-detection stack and any thread-local context are the borrower's.
 *
 * <p>A borrower waits {@code maxWaitForConnection} in all. One that found a place free goes on to HikariCP, which
 * waits for it up to that timeout. One that queued for its place goes on with what is left of its time: plainly when
 * HikariCP's counts show a connection free for it (a connection not lent for each of the gate's borrowers on their
 * way in, nobody but them waiting inside HikariCP, a place held for every connection lent), and otherwise under a
 * deadline: HikariCP 7.1's public API takes no timeout per borrow, so when that time runs out the gate interrupts the
 * borrower's wait inside HikariCP (it ends it with an {@code InterruptedException}), clears the interrupt it set and
 * refuses the borrower with HikariCP's own timeout. A connection HikariCP hands over as the time runs out is
 * served.</p>
 *
 * <p>The borrows HikariCP makes itself (its {@code ConnectivityCheck}) and those through the {@link HikariDataSource}
 * used directly take no place: while they hold a connection, a borrower with a place may wait inside HikariCP, within
 * its time all the same. Figures: {@code Wait} includes the time queued at the gate (added to HikariCP's record of
 * the borrow, on the borrower's thread), {@code PendingConnections} the borrowers queued at it, and a borrower refused
 * at the gate, or at its deadline, counts in {@code ConnectionTimeoutRate}; in detail,
 * {@code <pool>.pool.GateWaiting} (gauge: borrowers queued now) and {@code <pool>.pool.GateWait} (timer: each queued
 * borrower's time at the gate).</p>
 */
final class BorrowGate implements PoolHooks {
    // more places than any pool has borrowers, far from the semaphore's limit of Integer.MAX_VALUE
    private static final int OPEN_WIDE = 1 << 30;
    private static final long AT_ONCE = Long.MIN_VALUE;
    // the tracker of a pool that records no metrics, until HikariCP asks for one
    static final IMetricsTracker RECORDS_NOTHING = new IMetricsTracker() {
    };
    private static final int ARMED = 0;
    private static final int RINGING = 1;
    private static final int RANG = 2;
    private static final int DISARMED = 3;

    private final String poolName;
    private final MetricRegistry metrics;
    private final Places places;
    private final long configuredTimeoutMillis;
    private final Timer gateWait;
    // borrowers past the gate and not yet back from the rest of the borrow: striped, as every borrow counts
    private final LongAdder inFlight = new LongAdder();
    private final LongAdder underDeadline = new LongAdder();
    // HikariCP's connections lent through the gate and not yet returned, each holding a place
    private final Set<Connection> lent = ConcurrentHashMap.newKeySet();
    private final ScheduledThreadPoolExecutor deadlines;
    // the time this thread's borrower queued at the gate, for HikariCP's record of its borrow, made on this thread
    private final ThreadLocal<long[]> queued = ThreadLocal.withInitial(() -> new long[1]);
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
        // its thread starts with the first deadline
        this.deadlines = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, poolName + ":fair-borrowing");
            thread.setDaemon(true);
            return thread;
        });
        deadlines.setRemoveOnCancelPolicy(true);
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
    }

    /**
     * Takes a place, waiting in arrival order if need be, then a connection from the rest of the borrow, within the
     * connection timeout in all.
     *
     * @throws SQLTransientConnectionException when no connection came within the connection timeout
     */
    @Override
    public Connection borrow(Borrow next) throws SQLException {
        followResize();
        long startNanos = enter();
        inFlight.increment();
        boolean served = false;
        long[] queuedNanos = startNanos == AT_ONCE ? null : queued.get();
        try {
            if (queuedNanos != null) {
                queuedNanos[0] = System.nanoTime() - startNanos;
            }
            Connection connection = queuedNanos != null && !findsConnectionAtOnce()
                ? borrowBy(next, startNanos) : next.get();
            lent.add(connection);
            served = true;
            return connection;
        } finally {
            inFlight.decrement();
            if (queuedNanos != null) {
                queuedNanos[0] = 0;
            }
            if (!served) {
                // no connection, so no return will give the place back
                places.release();
            }
        }
    }

    /** @return when this borrower began to queue for its place, or {@link #AT_ONCE} when it found one free */
    private long enter() throws SQLException {
        try {
            // the timed form with no wait honours the queue, where tryAcquire() would jump it; a free place costs
            // no clock reading
            if (places.tryAcquire(0, TimeUnit.NANOSECONDS)) {
                return AT_ONCE;
            }
            long startNanos = System.nanoTime();
            releaseClosed();
            boolean placed = places.tryAcquire(TimeUnit.MILLISECONDS.toNanos(timeoutMillis()), TimeUnit.NANOSECONDS);
            long queuedNanos = System.nanoTime() - startNanos;
            gateWait.update(queuedNanos, TimeUnit.NANOSECONDS);
            if (!placed) {
                recording.recordConnectionTimeout();
                throw refused(queuedNanos);
            }
            return startNanos;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException(poolName + " - Interrupted during connection acquisition", e);
        }
    }

    /** The connection this borrower had is back: so is its place, unless {@link #releaseClosed} gave it back. */
    @Override
    public void returned(Connection connection) {
        if (lent.remove(connection)) {
            places.release();
        }
        followResize();
    }

    /**
     * Gives back the places of the connections lent that read closed without a return: closed behind the connection
     * the core lent (through a statement's {@code getConnection()}), or by a hook listed before this one as the borrow
     * ended; HikariCP 7.1's connection reads closed only once closed. Run as a borrower is about to queue, so no
     * borrower waits for such a place.
     */
    private void releaseClosed() {
        for (Connection connection : lent) {
            try {
                if (connection.isClosed() && lent.remove(connection)) {
                    places.release();
                }
            } catch (SQLException e) {
                // HikariCP's connection answers from its own state
            }
        }
    }

    private long timeoutMillis() {
        HikariDataSource running = pool;
        return running == null ? configuredTimeoutMillis : running.getHikariConfigMXBean().getConnectionTimeout();
    }

    /**
     * Whether a borrower holding a place finds a connection in HikariCP at once: HikariCP has a connection not
     * lent for each of the gate's borrowers on their way in, no more borrowers wait inside HikariCP than the gate's
     * own (each with a place), and every connection HikariCP has lent holds a place. The figures move while they
     * are read; they are read in an order that catches a borrow that skipped the gate at each of its steps (waiting,
     * lent a connection) unless it waits among the gate's own, and when they cannot tell, the answer is no.
     */
    private boolean findsConnectionAtOnce() {
        HikariDataSource running = pool;
        HikariPoolMXBean counts = running == null ? null : running.getHikariPoolMXBean();
        if (counts == null) {
            return false;
        }
        int placesNow = size;
        long before = inFlight.sum();
        // this borrower is in flight, not inside HikariCP: the others in flight may all be waiting there
        if (counts.getThreadsAwaitingConnection() >= before) {
            return false;
        }
        int active = counts.getActiveConnections();
        int total = counts.getTotalConnections();
        int free = places.availablePermits();
        long entering = Math.max(before, inFlight.sum());
        // a connection not lent for each borrower in flight, and a place held for each connection lent
        return total - active >= entering && free >= 0 && active <= placesNow - free - entering;
    }

    /**
     * The rest of the borrow, on this thread, its wait inside HikariCP interrupted at the end of the connection
     * timeout that began at {@code startNanos}.
     */
    private Connection borrowBy(Borrow next, long startNanos) throws SQLException {
        Deadline deadline = new Deadline(Thread.currentThread());
        ScheduledFuture<?> alarm;
        try {
            alarm = deadlines.schedule(deadline::ring, TimeUnit.MILLISECONDS.toNanos(timeoutMillis())
                - (System.nanoTime() - startNanos), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopping) {
            // HikariCP refuses here, at once
            return next.get();
        }
        underDeadline.increment();
        try {
            return next.get();
        } catch (SQLException | RuntimeException e) {
            if (deadline.disarm()) {
                // HikariCP counts no interrupted borrow
                recording.recordConnectionTimeout();
                throw refused(System.nanoTime() - startNanos);
            }
            throw e;
        } finally {
            alarm.cancel(false);
            deadline.disarm();
        }
    }

    /** HikariCP's own timeout: its type and message, with the gate's queue among the waiting. */
    private SQLTransientConnectionException refused(long waitedNanos) {
        HikariDataSource running = pool;
        HikariPoolMXBean counts = running == null ? null : running.getHikariPoolMXBean();
        String message = poolName + " - Connection is not available, request timed out after "
            + TimeUnit.NANOSECONDS.toMillis(waitedNanos) + "ms";
        if (counts != null) {
            message += " (total=" + counts.getTotalConnections() + ", active=" + counts.getActiveConnections()
                + ", idle=" + counts.getIdleConnections() + ", waiting="
                + pending(counts.getThreadsAwaitingConnection()) + ")";
        }
        return new SQLTransientConnectionException(message);
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

    /** @return every borrower waiting: those inside HikariCP ({@code insideHikari}, its count) and at the gate */
    int pending(int insideHikari) {
        return insideHikari + waiting();
    }

    /** @return the pool's size less the connections borrowed and not yet returned; negative after a shrink */
    int freePlaces() {
        return places.availablePermits();
    }

    /** @return borrows that went on to HikariCP under a deadline, having queued with no connection free for them */
    long underDeadline() {
        return underDeadline.sum();
    }

    @Override
    public void stopping() {
        // a borrower still inside HikariCP ends with HikariCP's refusal of the closed pool, or at its deadline
        deadlines.shutdown();
        metrics.remove(waitName());
        metrics.remove(waitingName());
    }

    /** Lets whoever still queues through, to HikariCP's own refusal of a closed pool. */
    @Override
    public void stopped() {
        if (places.availablePermits() < OPEN_WIDE) {
            places.release(OPEN_WIDE);
        }
    }

    @Override
    public String toString() {
        return "BorrowGate{pool=" + poolName + ", places=" + size + ", free=" + freePlaces() + ", waiting="
            + waiting() + "}";
    }

    /**
     * Every record goes on to HikariCP's tracker; a borrow's record holds the time its borrower queued at the gate.
     * HikariCP 7.1 records a borrow on the borrowing thread, inside its {@code getConnection()}, naming no borrow.
     */
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
            recording.recordConnectionAcquiredNanos(elapsedAcquiredNanos + queued.get()[0]);
        }

        @Override
        public void recordConnectionUsageMillis(long elapsedBorrowedMillis) {
            recording.recordConnectionUsageMillis(elapsedBorrowedMillis);
        }

        @Override
        public void recordConnectionTimeout() {
            recording.recordConnectionTimeout();
        }

        @Override
        public void close() {
            recording.close();
        }
    }

    /**
     * The end of one borrower's time: it interrupts the borrower, unless the borrower has disarmed it first. An
     * interrupt it set is cleared before the borrower leaves the gate, so that none reaches the application.
     */
    private static final class Deadline {
        private final Thread borrower;
        private final AtomicInteger state = new AtomicInteger(ARMED);

        Deadline(Thread borrower) {
            this.borrower = borrower;
        }

        /** On the gate's timer thread. */
        void ring() {
            if (state.compareAndSet(ARMED, RINGING)) {
                borrower.interrupt();
                state.set(RANG);
            }
        }

        /**
         * On the borrower's thread.
         *
         * @return whether the deadline rang: its interrupt is cleared
         */
        boolean disarm() {
            if (state.compareAndSet(ARMED, DISARMED)) {
                return false;
            }
            while (state.get() == RINGING) {
                Thread.onSpinWait();
            }
            if (state.compareAndSet(RANG, DISARMED)) {
                // HikariCP sets the interrupt again after the one it caught; the deadline's is no one else's
                Thread.interrupted();
            }
            return true;
        }
    }

    /** The JDK's fair semaphore, which can also give up places that are in use, for a pool made smaller. */
    private static final class Places extends Semaphore {
        private static final long serialVersionUID = 1L;

        Places(int size) {
            super(size, true);
        }

        @Override
        public void reducePermits(int reduction) {
            super.reducePermits(reduction);
        }
    }
}
