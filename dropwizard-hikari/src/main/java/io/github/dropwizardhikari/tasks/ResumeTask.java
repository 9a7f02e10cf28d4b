package io.github.dropwizardhikari.tasks;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dropwizardhikari.pool.ManagedHikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;

/** {@code pool-resume}: lets a suspended pool hand out connections again; the waiting borrowers go first. */
final class ResumeTask extends PoolTask {
    public static final String NAME = "pool-resume";

    private static final Logger LOGGER = LoggerFactory.getLogger(ResumeTask.class);

    public ResumeTask(KnownPools pools) {
        super(NAME, pools);
    }

    @Override
    protected Action prepare(ManagedHikariDataSource pool, Map<String, List<String>> parameters) {
        HikariDataSource running = SuspendTask.suspendable(this, pool);
        return output -> {
            if (running.isRunning()) {
                output.println("pool " + pool.getPoolName() + " is not suspended; nothing to resume");
                return;
            }
            running.getHikariPoolMXBean().resumePool();
            LOGGER.info("Pool {}: resumed on request", pool.getPoolName());
            output.println("pool " + pool.getPoolName() + ": resumed");
        };
    }
}
