package io.github.dropwizardhikari.fairborrowing;

import com.zaxxer.hikari.metrics.PoolStats;

/**
 * HikariCP's pool figures with the borrowers queued at the gate counted as pending too, so that
 * {@code PendingConnections} shows everyone waiting for a connection. The figures are HikariCP's own, read through;
 * this class caches nothing.
 */
final class QueueCountingStats extends PoolStats {
    private final PoolStats pool;
    private final BorrowGate gate;

    QueueCountingStats(PoolStats pool, BorrowGate gate) {
        super(0);
        this.pool = pool;
        this.gate = gate;
    }

    @Override
    public int getPendingThreads() {
        return gate.pending(pool.getPendingThreads());
    }

    @Override
    public int getTotalConnections() {
        return pool.getTotalConnections();
    }

    @Override
    public int getIdleConnections() {
        return pool.getIdleConnections();
    }

    @Override
    public int getActiveConnections() {
        return pool.getActiveConnections();
    }

    @Override
    public int getMaxConnections() {
        return pool.getMaxConnections();
    }

    @Override
    public int getMinConnections() {
        return pool.getMinConnections();
    }

    @Override
    protected void update() {
        // every getter reads HikariCP's figures through
    }
}
