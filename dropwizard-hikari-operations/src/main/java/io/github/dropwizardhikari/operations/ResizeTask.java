package io.github.dropwizardhikari.operations;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * {@code pool-resize?maxSize=&minSize=}: changes a running pool's size until restart, under the YAML rules
 * ({@code maxSize} at least 1, {@code minSize} from 0 to {@code maxSize}). HikariCP 7.1 closes surplus connections
 * as they become idle, and opens new ones on demand or up to {@code minSize}.
 */
final class ResizeTask extends PoolTask {
    static final String NAME = "pool-resize";
    static final String MAX_SIZE = "maxSize";
    static final String MIN_SIZE = "minSize";

    private static final Logger LOGGER = LoggerFactory.getLogger(ResizeTask.class);

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
