package io.github.dropwizardhikari.pool;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dropwizardhikari.borrow.GatedConnection;

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

    GatedHikariDataSource(HikariConfig config, IntConsumer onResize) {
        super(config);
        this.onResize = onResize;
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
