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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.AbstractQueuedLongSynchronizer;

/**
 * The fair borrow gate of one running pool: a fair semaphore with one place per connection, taken before
 * HikariCP's {@code getConnection()} and given back when HikariCP records the connection's return.
 *
 * <p>HikariCP 7.1 records a return ({@code recordConnectionUsageMillis}) in {@code recycle()}, before the
 * connection goes back to its bag, whichever object the application closed it through: the connection itself or a
 * statement's {@code getConnection()}. So the connections handed out are HikariCP's own, and no thread is ever
 * interrupted.</p>
 *
 * <p>A borrower waits {@code maxWaitForConnection} in all. One that found a place free goes on to HikariCP, which
 * waits for it up to that timeout. One that queued for its place goes on to HikariCP on its own thread only when
 * HikariCP's counts show a connection free for it (a connection not lent for each of the gate's borrowers on their
 * way in, nobody but them waiting inside HikariCP, a place held for every connection lent). Otherwise a helper
 * thread borrows for it, and it waits for the helper only for what is left of its time: a connection that comes
 * later goes back to the pool, a refusal that comes later is not counted again.</p>
 *
 * <p>A borrowed connection that HikariCP closes itself (a fatal SQL state, {@code evictConnection} while borrowed)
 * is never recycled, so its return is never recorded, and HikariCP 7.1 tells nothing else of it (no tracker call,
 * and its proxy reads as open until closed). The gate counts the places held against HikariCP's borrowed
 * connections and the borrowers between gate and HikariCP, and gives back the places no borrow holds, as far as
 * three counts 20 ms apart agree: when HikariCP creates a connection (it replaces a closed one in a pool of fixed
 * size), after each refusal, and otherwise once a second.</p>
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
    private static final Passage AT_ONCE = new Passage(0, 0, 0);
    // on a thread whose last borrow HikariCP recorded without a mark: it took a place
    private static final Passage TOOK_PLACE = new Passage(0, 0, 0);
    // on a thread whose borrow through the gate HikariCP has recorded: it holds a connection, no longer in flight
    private static final Passage LENT = new Passage(0, 0, 0);
    private static final IMetricsTracker RECORDS_NOTHING = new IMetricsTracker() {
    };
    // more places than any pool has borrowers, far from the semaphore's limit of Integer.MAX_VALUE
    private static final int OPEN_WIDE = 1 << 30;
    static final long SWEEP_MILLIS = 1_000;
    private static final long SAMPLE_MILLIS = 20;
    private static final int SAMPLES = 3;
    private static final long HELPER_IDLE_SECONDS = 30;

    private final String poolName;
    private final MetricRegistry metrics;
    private final Places places;
    private final long configuredTimeoutMillis;
    private final Timer gateWait;
    // on the borrowing thread (or its helper) while it is inside HikariCP
    private final ThreadLocal<Passage> passed = new ThreadLocal<>();
    // borrows holding a place while inside HikariCP, until HikariCP records them: striped, as every borrow counts
    private final LongAdder inFlight = new LongAdder();
    // helpers still inside HikariCP for a borrower that stopped waiting: no longer pending
    private final AtomicInteger givenUp = new AtomicInteger();
    private final LongAdder handedOff = new LongAdder();
    private final ScheduledThreadPoolExecutor sweeper;
    private final ThreadPoolExecutor helpers;
    private final long sweepMillis;

    private volatile IMetricsTracker recording = RECORDS_NOTHING;
    @Nullable
    private volatile HikariDataSource pool;
    // written under this object's lock
    private volatile int size;

    BorrowGate(String poolName, int size, long timeoutMillis, MetricRegistry metrics) {
        this(poolName, size, timeoutMillis, metrics, SWEEP_MILLIS);
    }

    /** @param sweepMillis how often to look for places lost to connections HikariCP closed, short of any event */
    BorrowGate(String poolName, int size, long timeoutMillis, MetricRegistry metrics, long sweepMillis) {
        this.poolName = poolName;
        this.metrics = metrics;
        this.places = new Places(size);
        this.size = size;
        this.configuredTimeoutMillis = timeoutMillis;
        this.sweepMillis = sweepMillis;
        this.gateWait = metrics.register(waitName(), new Timer(LockFreeExponentiallyDecayingReservoir.builder()
            .build()));
        metrics.register(waitingName(), (Gauge<Integer>) this::waiting);
        // their threads start with the pool, and only when needed
        this.sweeper = new ScheduledThreadPoolExecutor(1, daemon(poolName + ":fair-borrowing"));
        this.helpers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, HELPER_IDLE_SECONDS, TimeUnit.SECONDS,
            new SynchronousQueue<>(), daemon(poolName + ":fair-borrowing-helper"));
    }

    private static ThreadFactory daemon(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
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
        sweeper.scheduleWithFixedDelay(this::sweep, sweepMillis, sweepMillis, TimeUnit.MILLISECONDS);
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
        Passage passage = enter();
        inFlight.increment();
        places.counted();
        if (passage != AT_ONCE && !findsConnectionAtOnce()) {
            Handoff handoff = new Handoff(passage);
            if (handOff(handoff, next)) {
                return await(handoff);
            }
            // no helper while the pool stops: HikariCP refuses here, at once
        }
        return borrowHere(next, passage);
    }

    private Connection borrowHere(Borrow next, Passage passage) throws SQLException {
        passed.set(passage);
        boolean failed = true;
        try {
            Connection connection = next.get();
            failed = false;
            return connection;
        } finally {
            boolean inFlightStill = passed.get() != LENT;
            passed.remove();
            if (failed) {
                // no connection: HikariCP recorded no borrow, or a timeout, so no return will give the place back;
                // given back before the borrow leaves the count in flight, so that no sweep gives it back too
                places.release();
            }
            if (inFlightStill) {
                inFlight.decrement();
            }
        }
    }

    /** @return how this borrower passed the gate: at once, or after queueing */
    private Passage enter() throws SQLException {
        try {
            // the timed form with no wait honours the queue, where tryAcquire() would jump it; a free place costs
            // no clock reading
            if (places.tryAcquire(0, TimeUnit.NANOSECONDS)) {
                return AT_ONCE;
            }
            long start = System.nanoTime();
            long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMillis());
            boolean placed = places.tryAcquire(timeoutNanos, TimeUnit.NANOSECONDS);
            long queued = System.nanoTime() - start;
            gateWait.update(queued, TimeUnit.NANOSECONDS);
            if (!placed) {
                recording.recordConnectionTimeout();
                // a place lost to a connection HikariCP closed is found now rather than at the next sweep
                sweepSoon();
                throw refused(queued);
            }
            return new Passage(start, queued, timeoutNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw interrupted(e);
        }
    }

    private SQLException interrupted(InterruptedException e) {
        return new SQLException(poolName + " - Interrupted during connection acquisition", e);
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
     * lent a connection, place taken) unless it waits among the gate's own, and when they cannot tell, the answer is
     * no.
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
        int lent = counts.getActiveConnections();
        int total = counts.getTotalConnections();
        int free = places.availablePermits();
        long entering = Math.max(before, inFlight.sum());
        // a connection not lent for each borrower in flight, and a place held for each connection lent
        return total - lent >= entering && free >= 0 && lent <= placesNow - free - entering;
    }

    /**
     * A helper thread borrows for a borrower who holds a place (and is counted in flight), and who waits for it only
     * for what is left of its time. The helper holds the place while inside HikariCP; a connection that comes after
     * the borrower stopped waiting goes back to the pool, and gives the place back as any return does.
     *
     * @return false when the pool is stopping and takes no more helpers
     */
    private boolean handOff(Handoff handoff, Borrow next) {
        try {
            helpers.execute(() -> borrowFor(handoff, next));
        } catch (RejectedExecutionException stopping) {
            return false;
        }
        handedOff.increment();
        return true;
    }

    private Connection await(Handoff handoff) throws SQLException {
        try {
            return handoff.result.get(handoff.remainingNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            if (giveUp(handoff)) {
                recording.recordConnectionTimeout();
                throw refused(System.nanoTime() - handoff.startNanos);
            }
            return taken(handoff);
        } catch (ExecutionException e) {
            throw sqlException(e.getCause());
        } catch (InterruptedException e) {
            if (!giveUp(handoff) && !handoff.result.isCompletedExceptionally()) {
                // the connection came as the borrower was interrupted: back to the pool
                closeQuietly(handoff.result.join());
            }
            Thread.currentThread().interrupt();
            throw interrupted(e);
        }
    }

    /** @return whether the borrower stopped waiting before the helper answered */
    private boolean giveUp(Handoff handoff) {
        // counted first, so that the helper, which uncounts it once it sees the cancel, never goes below zero
        givenUp.incrementAndGet();
        if (handoff.result.cancel(false)) {
            return true;
        }
        givenUp.decrementAndGet();
        return false;
    }

    private Connection taken(Handoff handoff) throws SQLException {
        try {
            return handoff.result.join();
        } catch (CompletionException e) {
            throw sqlException(e.getCause());
        }
    }

    private static SQLException sqlException(Throwable failure) {
        if (failure instanceof SQLException sql) {
            return sql;
        }
        if (failure instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (failure instanceof Error error) {
            throw error;
        }
        return new SQLException(failure);
    }

    /** On a helper thread: the rest of the borrow, for a borrower that may stop waiting for it. */
    private void borrowFor(Handoff handoff, Borrow next) {
        passed.set(handoff);
        try {
            Connection connection = next.get();
            if (!handoff.result.complete(connection)) {
                // its return gives the place back
                closeQuietly(connection);
            }
        } catch (SQLException | RuntimeException | Error e) {
            places.release();
            handoff.result.completeExceptionally(e);
        } finally {
            passed.remove();
            if (!handoff.lent) {
                inFlight.decrement();
            }
        }
        if (handoff.result.isCancelled()) {
            givenUp.decrementAndGet();
        }
    }

    private static void closeQuietly(@Nullable Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                // the pool has it back, or is closed
            }
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

    /**
     * HikariCP is recording a borrow, or a borrow that timed out, on the borrowing thread.
     *
     * @return the nanoseconds the borrower queued at the gate, or -1 when the record is of a helper whose borrower
     *     stopped waiting for it, and so of no borrower's wait
     */
    private long acquired() {
        Passage passage = passed.get();
        if (passage == null || passage == TOOK_PLACE) {
            // a borrow that did not pass the gate: its return gives a place back all the same
            places.take();
            passed.set(TOOK_PLACE);
            return 0;
        }
        if (passage == LENT) {
            return 0;
        }
        inFlight.decrement();
        if (passage instanceof Handoff handoff) {
            handoff.lent = true;
            return handoff.givenUp() ? -1 : handoff.queuedNanos;
        }
        passed.set(LENT);
        return passage.queuedNanos;
    }

    /**
     * HikariCP is recording a timeout, on the thread whose borrow it has just recorded.
     *
     * @return whether it counts: not for a helper whose borrower was already refused
     */
    private boolean timedOut() {
        Passage passage = passed.get();
        if (passage == TOOK_PLACE) {
            passed.remove();
            places.release();
        }
        return !(passage instanceof Handoff handoff && handoff.givenUp());
    }

    /** HikariCP is recording a return, before the connection goes back to its bag. */
    private void returned() {
        places.release();
        followResize();
    }

    private void sweepSoon() {
        if (!sweeper.isShutdown() && sweeper.getQueue().size() < 2) {
            try {
                sweeper.execute(this::sweep);
            } catch (RejectedExecutionException stopping) {
                // the pool is stopping
            }
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
        long held = places.held(size);
        long lost = held - inFlight.sum() - borrowed;
        long entering = inFlight.sum();
        held = places.held(size);
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

    /**
     * @return every borrower waiting: those inside HikariCP ({@code insideHikari}, HikariCP's count) less the
     *     helpers no borrower waits for, and those queued at the gate
     */
    int pending(int insideHikari) {
        return Math.max(0, insideHikari - givenUp.get()) + waiting();
    }

    /** @return the pool's size less the connections borrowed and not yet returned; negative after a shrink */
    int freePlaces() {
        return places.availablePermits();
    }

    /** @return borrows that a helper thread took on for a borrower who had queued */
    long handedOff() {
        return handedOff.sum();
    }

    /** @return helpers still inside HikariCP for a borrower that stopped waiting */
    int givenUp() {
        return givenUp.get();
    }

    @Override
    public void stopping() {
        sweeper.shutdownNow();
        // no interrupt: a helper still inside HikariCP ends with HikariCP's refusal of the closed pool
        helpers.shutdown();
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
            // HikariCP replaces a connection it closed, perhaps one that was borrowed
            sweepSoon();
        }

        @Override
        public void recordConnectionAcquiredNanos(long elapsedAcquiredNanos) {
            long queued = acquired();
            if (queued >= 0) {
                recording.recordConnectionAcquiredNanos(elapsedAcquiredNanos + queued);
            }
        }

        @Override
        public void recordConnectionUsageMillis(long elapsedBorrowedMillis) {
            returned();
            recording.recordConnectionUsageMillis(elapsedBorrowedMillis);
        }

        @Override
        public void recordConnectionTimeout() {
            if (timedOut()) {
                recording.recordConnectionTimeout();
            }
        }

        @Override
        public void close() {
            recording.close();
        }
    }

    /** How a borrower passed the gate: when it started queueing, how long it queued, and its whole timeout. */
    private static class Passage {
        final long startNanos;
        final long queuedNanos;
        final long timeoutNanos;

        Passage(long startNanos, long queuedNanos, long timeoutNanos) {
            this.startNanos = startNanos;
            this.queuedNanos = queuedNanos;
            this.timeoutNanos = timeoutNanos;
        }

        long remainingNanos() {
            return timeoutNanos - (System.nanoTime() - startNanos);
        }
    }

    /** A borrow a helper makes for a borrower that waits for its result, or stops waiting by cancelling it. */
    private static final class Handoff extends Passage {
        final CompletableFuture<Connection> result = new CompletableFuture<>();
        // written and read on the helper's thread: HikariCP has recorded its borrow
        boolean lent;

        Handoff(Passage passage) {
            super(passage.startNanos, passage.queuedNanos, passage.timeoutNanos);
        }

        /** @return whether the borrower stopped waiting for this borrow */
        boolean givenUp() {
            // inside HikariCP the helper has not answered yet: only the borrower can have ended the result
            return result.isCancelled();
        }
    }

    /**
     * A fair semaphore whose places can also be taken without waiting, below zero if need be, and which counts in
     * the same step as it gives a place the places given to borrowers not yet counted in flight: a borrower held
     * between the two is never a lost place to the sweep. As the JDK's fair {@code Semaphore}, whose acquiring it
     * repeats, it wakes its next waiter only once the one before has run: on platform threads a contended pool turns
     * over once per thread wake-up. A queue that hands each place to a waiter of its own was faster there, but
     * slower and with longer waits on virtual threads (docs/fair-borrowing.md has both).
     */
    private static final class Places extends AbstractQueuedLongSynchronizer {
        private static final long serialVersionUID = 1L;
        // the state: the free places in its high 32 bits, the places given and not yet counted in its low 32 bits
        private static final long ONE_FREE = 1L << 32;

        Places(int size) {
            setState(size * ONE_FREE);
        }

        boolean tryAcquire(long timeout, TimeUnit unit) throws InterruptedException {
            return tryAcquireSharedNanos(1, unit.toNanos(timeout));
        }

        /** The borrower this thread was given a place for is counted in flight now. */
        void counted() {
            add(-1);
        }

        void release() {
            releaseShared(1);
        }

        void release(int count) {
            releaseShared(count);
        }

        void take() {
            add(-ONE_FREE);
        }

        void reducePermits(int reduction) {
            add(-reduction * ONE_FREE);
        }

        int availablePermits() {
            return free(getState());
        }

        /** @return the places taken of {@code size}, less those given to borrowers not yet counted in flight */
        int held(int size) {
            long state = getState();
            return size - free(state) - (int) (state & (ONE_FREE - 1));
        }

        private static int free(long state) {
            return (int) (state >> 32);
        }

        private void add(long delta) {
            long state;
            do {
                state = getState();
            } while (!compareAndSetState(state, state + delta));
        }

        @Override
        protected long tryAcquireShared(long count) {
            while (true) {
                if (hasQueuedPredecessors()) {
                    return -1;
                }
                long state = getState();
                long left = free(state) - count;
                if (left < 0 || compareAndSetState(state, state - count * ONE_FREE + count)) {
                    return left;
                }
            }
        }

        @Override
        protected boolean tryReleaseShared(long count) {
            add(count * ONE_FREE);
            return true;
        }
    }
}
