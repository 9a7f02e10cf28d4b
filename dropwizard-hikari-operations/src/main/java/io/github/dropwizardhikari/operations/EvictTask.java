package io.github.dropwizardhikari.operations;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code pool-evict}: retires every connection (idle ones at once, those in use when returned), to move a pool to a
 * failed-over primary or to rotated credentials without a restart.
 */
final class EvictTask extends PoolTask {
    private static final Logger LOGGER = LoggerFactory.getLogger(EvictTask.class);

    EvictTask(Supplier<List<ManagedHikariDataSource>> pools) {
        super("pool-evict", pools);
    }

    @Override
    protected Action prepare(ManagedHikariDataSource pool, Map<String, List<String>> parameters) {
        HikariDataSource running = started(pool);
        return output -> {
            HikariPoolMXBean bean = running.getHikariPoolMXBean();
            int idle = bean.getIdleConnections();
            int active = bean.getActiveConnections();
            bean.softEvictConnections();
            LOGGER.info("Pool {}: evicted every connection on request ({} idle closed, {} in use retire when "
                + "returned)", pool.getPoolName(), idle, active);
            output.println("pool " + pool.getPoolName() + ": evicted every connection; " + idle + " idle closed "
                + "now, " + active + " in use retire when returned; new connections are opened as needed");
        };
    }
}
