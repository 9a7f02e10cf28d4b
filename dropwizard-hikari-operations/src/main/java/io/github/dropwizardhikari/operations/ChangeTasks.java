package io.github.dropwizardhikari.operations;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/** The tasks that change a running pool until restart; each logs one line saying what it changed. */
final class ChangeTasks {
    private static final Logger LOGGER = LoggerFactory.getLogger(ChangeTasks.class);

    private ChangeTasks() {
    }

    /**
     * {@code pool-evict}: retires every connection (idle ones at once, those in use when returned), to move a pool to
     * a failed-over primary or to rotated credentials without a restart.
     */
    static final class EvictTask extends PoolTask {
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

    /**
     * {@code pool-suspend} stops a pool from handing out connections until {@code pool-resume}; both need
     * {@code allowPoolSuspension: true}. HikariCP 7.1 makes borrowers of a suspended pool wait, or fail at once with
     * {@code -Dcom.zaxxer.hikari.throwIfSuspended=true}; on resume the waiting borrowers go first.
     */
    static final class SuspensionTask extends PoolTask {
        static final String SUSPEND = "pool-suspend";
        static final String RESUME = "pool-resume";

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

    /**
     * {@code pool-resize?maxSize=&minSize=}: changes a running pool's size until restart, under the YAML rules
     * ({@code maxSize} at least 1, {@code minSize} from 0 to {@code maxSize}). HikariCP 7.1 closes surplus connections
     * as they become idle, and opens new ones on demand or up to {@code minSize}.
     */
    static final class ResizeTask extends PoolTask {
        static final String NAME = "pool-resize";
        static final String MAX_SIZE = "maxSize";
        static final String MIN_SIZE = "minSize";

        ResizeTask(Supplier<List<ManagedHikariDataSource>> pools) {
            super(NAME, pools, MAX_SIZE, MIN_SIZE);
        }

        @Override
        protected Action prepare(ManagedHikariDataSource pool, Map<String, List<String>> parameters) {
            Optional<Integer> newMax = size(parameters, MAX_SIZE, 1);
            Optional<Integer> newMin = size(parameters, MIN_SIZE, 0);
            if (newMax.isEmpty() && newMin.isEmpty()) {
                throw badRequest(NAME + " needs maxSize, minSize or both, for example "
                    + NAME + "?maxSize=20");
            }
            HikariDataSource running = started(pool);
            int oldMax = running.getMaximumPoolSize();
            int oldMin = running.getMinimumIdle();
            int max = newMax.orElse(oldMax);
            int min = newMin.orElse(oldMin);
            if (min > max) {
                String culprit = newMin.isPresent() ? MIN_SIZE : MAX_SIZE;
                throw badRequest(culprit + ": minSize (" + min + ") must be less than or equal to maxSize ("
                    + max + ")" + (newMin.isEmpty() ? "; give minSize too" : newMax.isEmpty() ? "; give maxSize too"
                    : ""));
            }
            return output -> {
                // in an order that never leaves minSize above maxSize, not even between the two calls
                if (max >= oldMax) {
                    running.setMaximumPoolSize(max);
                    running.setMinimumIdle(min);
                } else {
                    running.setMinimumIdle(min);
                    running.setMaximumPoolSize(max);
                }
                LOGGER.warn("Pool {}: resized on request: maxSize {} -> {}, minSize {} -> {} (until restart)",
                    pool.getPoolName(), oldMax, max, oldMin, min);
                output.println("pool " + pool.getPoolName() + ": maxSize " + oldMax + " -> " + max + ", minSize "
                    + oldMin + " -> " + min + " (until the application restarts; the configuration is unchanged)");
            };
        }

        private static Optional<Integer> size(Map<String, List<String>> parameters, String name, int floor) {
            return single(parameters, name).map(value -> {
                int size;
                try {
                    size = Integer.parseInt(value);
                } catch (NumberFormatException e) {
                    throw badRequest(name + " must be a whole number; got '" + value + "'");
                }
                if (size < floor) {
                    throw badRequest(name + " must be at least " + floor + "; got " + size);
                }
                return size;
            });
        }
    }
}
