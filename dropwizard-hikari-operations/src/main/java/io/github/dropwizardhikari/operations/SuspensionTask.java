package io.github.dropwizardhikari.operations;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * {@code pool-suspend} stops a pool from handing out connections until {@code pool-resume}; both need
 * {@code allowPoolSuspension: true}. HikariCP 7.1 makes borrowers of a suspended pool wait, or fail at once with
 * {@code -Dcom.zaxxer.hikari.throwIfSuspended=true}; on resume the waiting borrowers go first.
 */
final class SuspensionTask extends PoolTask {
    static final String SUSPEND = "pool-suspend";
    static final String RESUME = "pool-resume";

    private static final Logger LOGGER = LoggerFactory.getLogger(SuspensionTask.class);

    private final boolean suspend;

    SuspensionTask(Supplier<List<ManagedHikariDataSource>> pools, boolean suspend) {
        super(suspend ? SUSPEND : RESUME, pools);
        this.suspend = suspend;
    }

    @Override
    protected Action prepare(ManagedHikariDataSource pool, Map<String, List<String>> parameters) {
        HikariDataSource running = started(pool);
        String name = pool.getPoolName();
        if (!running.isAllowPoolSuspension()) {
            throw conflict("pool " + name + " cannot be suspended or resumed: it was built with "
                + "allowPoolSuspension: false; set allowPoolSuspension: true in its configuration and restart to "
                + "use " + SUSPEND + " and " + RESUME);
        }
        return suspend ? output -> suspend(running, name, output) : output -> resume(running, name, output);
    }

    // HikariCP's isRunning() is false for a suspended pool
    private static void suspend(HikariDataSource running, String name, PrintWriter output) {
        if (!running.isRunning()) {
            output.println("pool " + name + " is already suspended; pool-resume resumes it");
            return;
        }
        HikariPoolMXBean bean = running.getHikariPoolMXBean();
        bean.suspendPool();
        LOGGER.warn("Pool {}: suspended on request; borrowers wait until it is resumed", name);
        output.println("pool " + name + ": suspended; " + bean.getActiveConnections()
            + " connection(s) in use carry on; new borrowers wait until pool-resume");
    }

    private static void resume(HikariDataSource running, String name, PrintWriter output) {
        if (running.isRunning()) {
            output.println("pool " + name + " is not suspended; nothing to resume");
            return;
        }
        running.getHikariPoolMXBean().resumePool();
        LOGGER.info("Pool {}: resumed on request", name);
        output.println("pool " + name + ": resumed");
    }
}
