package io.github.dropwizardhikari.tasks;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dropwizardhikari.pool.ManagedHikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;

/**
 * {@code pool-suspend}: stops a pool from handing out connections until {@code pool-resume}; needs
 * {@code allowPoolSuspension: true}. HikariCP 7.1 makes borrowers wait, or fail at once with
 * {@code -Dcom.zaxxer.hikari.throwIfSuspended=true}.
 */
final class SuspendTask extends PoolTask {
    public static final String NAME = "pool-suspend";

    private static final Logger LOGGER = LoggerFactory.getLogger(SuspendTask.class);

    public SuspendTask(KnownPools pools) {
        super(NAME, pools);
    }

    @Override
    protected Action prepare(ManagedHikariDataSource pool, Map<String, List<String>> parameters) {
        HikariDataSource running = suspendable(this, pool);
        return output -> {
            if (!running.isRunning()) {
                output.println("pool " + pool.getPoolName() + " is already suspended; pool-resume resumes it");
                return;
            }
            running.getHikariPoolMXBean().suspendPool();
            LOGGER.warn("Pool {}: suspended on request; borrowers wait until it is resumed", pool.getPoolName());
            output.println("pool " + pool.getPoolName() + ": suspended; " + running.getHikariPoolMXBean()
                .getActiveConnections() + " connection(s) in use carry on; new borrowers wait until pool-resume");
        };
    }

    static HikariDataSource suspendable(PoolTask task, ManagedHikariDataSource pool) {
        HikariDataSource running = task.started(pool);
        if (!running.isAllowPoolSuspension()) {
            throw TaskRefusal.conflict("pool " + pool.getPoolName() + " cannot be suspended or resumed: it was "
                + "built with allowPoolSuspension: false; set allowPoolSuspension: true in its configuration and "
                + "restart to use " + SuspendTask.NAME + " and " + ResumeTask.NAME);
        }
        return running;
    }
}
