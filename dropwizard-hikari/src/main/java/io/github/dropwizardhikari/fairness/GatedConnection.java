package io.github.dropwizardhikari.fairness;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * A connection borrowed through the {@link FairBorrowGate}: HikariCP's own connection, which gives its place at the
 * gate back exactly once, on the first of {@link #close()}, {@link #abort(Executor)} or eviction
 * ({@link #evicted()}), however often and in whatever order they are called.
 *
 * <p>Every other call goes to HikariCP's connection unchanged (through the subclass {@link Wrappers} generates), so
 * HikariCP's state resets, statement tracking and eviction on fatal SQL states all still apply;
 * {@link #unwrap(Class)} reaches the driver's connection through it. The statements, result sets and metadata it
 * hands out lead back to this connection, not to HikariCP's ({@link LinkedToGatedConnection}): whichever of them
 * the application closes the connection through, the place goes back.</p>
 */
public abstract class GatedConnection implements Connection {
    // a field updater, not an AtomicBoolean: one object less on every borrow
    private static final AtomicIntegerFieldUpdater<GatedConnection> PLACE_RETURNED =
        AtomicIntegerFieldUpdater.newUpdater(GatedConnection.class, "placeReturned");

    /** HikariCP's connection; the generated subclass calls it. */
    final Connection delegate;
    private final FairBorrowGate gate;
    private volatile int placeReturned;

    GatedConnection(Connection delegate, FairBorrowGate gate) {
        this.delegate = delegate;
        this.gate = gate;
    }

    /** @return HikariCP's connection, for HikariCP's own calls that need it ({@code evictConnection}) */
    public final Connection pooled() {
        return delegate;
    }

    /**
     * Returns HikariCP's connection to the pool, then the place at the gate. The place goes back even when
     * HikariCP's close fails (a broken connection), since HikariCP has taken the connection back by then.
     */
    @Override
    public final void close() throws SQLException {
        try {
            delegate.close();
        } finally {
            returnPlace();
        }
    }

    /**
     * Aborts the driver's connection and hands HikariCP's connection back, which evicts it: after an abort the
     * application need not call {@link #close()}, as JDBC says, and the place at the gate must not leak.
     */
    @Override
    public final void abort(Executor executor) throws SQLException {
        try {
            delegate.abort(executor);
        } finally {
            try {
                delegate.close();
            } catch (SQLException alreadyBroken) {
                // the connection was just aborted: HikariCP's reset fails, evicts it, and takes the entry back
            } finally {
                returnPlace();
            }
        }
    }

    /**
     * Called once HikariCP has evicted this connection at the application's request: HikariCP no longer counts it
     * as borrowed, so its place goes back now; a later {@link #close()} returns nothing twice.
     */
    public final void evicted() {
        returnPlace();
    }

    @Override
    public final <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : delegate.unwrap(iface);
    }

    @Override
    public final boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || delegate.isWrapperFor(iface);
    }

    @Override
    public final String toString() {
        return "GatedConnection{" + delegate + "}";
    }

    private void returnPlace() {
        if (PLACE_RETURNED.compareAndSet(this, 0, 1)) {
            gate.release();
        }
    }
}
