package io.github.dropwizardhikari.pool;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.dropwizardhikari.fairness.GatedConnection;
import io.github.dropwizardhikari.metrics.QueueBeforeThePool;

import java.sql.Connection;
import java.util.function.IntConsumer;

/**
 * HikariCP's data source, reporting each runtime change of its maximum size, and evicting the connections the
 * fair borrow gate hands out.
 *
 * <p>HikariCP is its own {@code HikariConfigMXBean}: {@code getHikariConfigMXBean()} returns the data source, and
 * the JMX bean it registers is the same object, so this setter sees every resize, whichever way it comes.
 * HikariCP copies the configuration into the data source field by field, so building it calls no setter.</p>
 *
 * <p>HikariCP evicts only its own connection classes and silently ignores any other, so a
 * {@link GatedConnection} is evicted through the HikariCP connection it wraps, and gives its place at the gate
 * back.</p>
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
     * HikariCP's pool bean, with the borrowers queued at the fair borrow gate counted among those awaiting a
     * connection: every reader of the bean (the Tomcat-named gauges, {@code pool-status}, the health checks) sees
     * the same queue as {@code PendingConnections}.
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
