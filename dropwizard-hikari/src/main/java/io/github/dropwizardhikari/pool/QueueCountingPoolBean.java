package io.github.dropwizardhikari.pool;

import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.dropwizardhikari.metrics.QueueBeforeThePool;

/** HikariCP's pool bean, counting the borrowers queued before HikariCP as awaiting a connection too. */
final class QueueCountingPoolBean implements HikariPoolMXBean {
    private final HikariPoolMXBean pool;
    private final QueueBeforeThePool queue;

    QueueCountingPoolBean(HikariPoolMXBean pool, QueueBeforeThePool queue) {
        this.pool = pool;
        this.queue = queue;
    }

    @Override
    public int getThreadsAwaitingConnection() {
        return pool.getThreadsAwaitingConnection() + queue.waiting();
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
    public int getTotalConnections() {
        return pool.getTotalConnections();
    }

    @Override
    public void softEvictConnections() {
        pool.softEvictConnections();
    }

    @Override
    public void suspendPool() {
        pool.suspendPool();
    }

    @Override
    public void resumePool() {
        pool.resumePool();
    }
}
