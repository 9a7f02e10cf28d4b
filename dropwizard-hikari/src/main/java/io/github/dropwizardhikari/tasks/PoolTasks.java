package io.github.dropwizardhikari.tasks;

import io.dropwizard.core.setup.Environment;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterRegistration;

import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Registers the pool tasks on an application's admin port: {@code pool-evict}, {@code pool-suspend},
 * {@code pool-resume}, {@code pool-resize} and {@code pool-status}, each a POST to
 * {@code /tasks/<name>} that acts on the pool named by {@code pool=<name>}, or on the only pool.
 */
public final class PoolTasks {
    private static final String FILTER_NAME = "dropwizard-hikari-pool-tasks";
    // environments that have the tasks already: an application with several bundles registers them once
    private static final Set<Environment> REGISTERED = Collections.newSetFromMap(new WeakHashMap<>());

    private PoolTasks() {
    }

    /**
     * Registers the tasks, once per environment; later calls for the same environment do nothing.
     *
     * @param environment the application's environment
     * @param pools       where the tasks find the pools, at each request
     * @return whether this call registered them
     */
    public static boolean register(Environment environment, KnownPools pools) {
        synchronized (REGISTERED) {
            if (!REGISTERED.add(environment)) {
                return false;
            }
        }
        List<PoolTask> tasks = List.of(new EvictTask(pools), new SuspendTask(pools), new ResumeTask(pools),
            new ResizeTask(pools), new StatusTask(pools));
        tasks.forEach(environment.admin()::addTask);
        FilterRegistration.Dynamic refusals = environment.admin().addFilter(FILTER_NAME, new PoolTaskRefusals(tasks));
        refusals.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/tasks/*");
        return true;
    }
}
