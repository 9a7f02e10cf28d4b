package io.github.dropwizardhikari.tasks;

import io.dropwizard.core.setup.Environment;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterRegistration;

import java.util.EnumSet;
import java.util.List;

/**
 * The pool tasks on the admin port: {@code pool-evict}, {@code pool-suspend}, {@code pool-resume},
 * {@code pool-resize} and {@code pool-status}, each a POST to {@code /tasks/<name>} that acts on the pool named by
 * {@code pool=<name>}, or on the only pool.
 */
public final class PoolTasks {
    private static final String FILTER_NAME = "dropwizard-hikari-pool-tasks";

    private PoolTasks() {
    }

    /** Call it once per environment. */
    public static void register(Environment environment, KnownPools pools) {
        List<PoolTask> tasks = List.of(new EvictTask(pools), new SuspensionTask(pools, true),
            new SuspensionTask(pools, false), new ResizeTask(pools), new StatusTask(pools));
        tasks.forEach(environment.admin()::addTask);
        FilterRegistration.Dynamic refusals = environment.admin().addFilter(FILTER_NAME, new PoolTaskRefusals(tasks));
        refusals.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/tasks/*");
    }
}
