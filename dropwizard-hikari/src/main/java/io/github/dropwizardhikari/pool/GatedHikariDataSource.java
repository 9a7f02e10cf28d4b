package io.github.dropwizardhikari.pool;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.dropwizardhikari.fairness.GatedConnection;
import io.github.dropwizardhikari.metrics.QueueBeforeThePool;

import java.sql.Connection;
import java.util.function.IntConsumer;

/**
 * HikariCP's data source, reporting each runtime resize, and evicting the connections the fair borrow gate hands out.
 *
 * <p>HikariCP 7.1's data source is its own {@code HikariConfigMXBean} (also the JMX bean), so
 * {@link #setMaximumPoolSize} sees every resize; its constructor copies the configuration field by field, calling no
 * setter. It silently ignores the eviction of a connection class not its own, so a {@link GatedConnection} is
 * evicted through the connection it wraps, and gives its place at the gate back.</p>
 */
final class GatedHikariDataSource extends HikariDataSource {
    private final IntConsumer onResize;
    private final QueueBeforeThePool queue;

    GatedHikariDataSource(HikariConfig config, IntConsumer onResize, QueueBeforeThePool queue) {
        super(config);
        this.onResize = onResize;
        this.queue = queue;
    }

    /**
     * HikariCP's pool bean, counting the borrowers queued at the gate as awaiting a connection, so that every reader
     * of the bean (the Tomcat-named gauges, {@code pool-status}, the health checks) sees the queue that
     * {@code PendingConnections} shows.
     */
    @Override
    public HikariPoolMXBean getHikariPoolMXBean() {
        HikariPoolMXBean pool = super.getHikariPoolMXBean();
        return pool == null || queue == QueueBeforeThePool.NONE ? pool : new QueueCountingPoolBean(pool, queue);
    }

    @Override
    public void setMaximumPoolSize(int maxPoolSize) {
        super.setMaximumPoolSize(maxPoolSize);
        onResize.accept(maxPoolSize);
    }

    @Override
    public void evictConnection(Connection connection) {
        if (connection instanceof GatedConnection) {
            GatedConnection gated = (GatedConnection) connection;
            super.evictConnection(gated.pooled());
            gated.evicted();
        } else {
            super.evictConnection(connection);
        }
    }
}
