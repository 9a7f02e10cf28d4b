package io.github.dropwizardhikari.operations;

import io.dropwizard.core.setup.Environment;
import io.dropwizard.jetty.MutableServletContextHandler;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * The pool tasks on the admin port: {@code pool-evict}, {@code pool-suspend}, {@code pool-resume},
 * {@code pool-resize} and {@code pool-status}, each a POST to {@code /tasks/<name>} that acts on the pool named by
 * {@code pool=<name>}, or on the only pool. One set serves every block of the application that names the
 * extension: Dropwizard's task servlet keeps one task per name (5.0 replaces an earlier one silently), so a second
 * block adds its pools to the set the first one registered, which the admin context holds as an attribute.
 */
final class PoolTasks {
    static final String FILTER_NAME = "dropwizard-hikari-pool-tasks";
    private static final String ATTRIBUTE = PoolTasks.class.getName();

    // each block's pools, asked at every request, so a pool built after the tasks were registered is found too
    private final List<Supplier<List<ManagedHikariDataSource>>> blocks = new CopyOnWriteArrayList<>();

    private PoolTasks() {
    }

    /** Adds the tasks to the environment's admin port, or {@code pools} to the tasks a block added before. */
    static void register(Environment environment, Supplier<List<ManagedHikariDataSource>> pools) {
        MutableServletContextHandler admin = environment.getAdminContext();
        synchronized (admin) {
            if (admin.getAttribute(ATTRIBUTE) instanceof PoolTasks registered) {
                registered.blocks.add(requireNonNull(pools, "pools"));
                return;
            }
            PoolTasks tasks = new PoolTasks();
            tasks.blocks.add(requireNonNull(pools, "pools"));
            admin.setAttribute(ATTRIBUTE, tasks);
            addTo(environment, tasks::pools);
        }
    }

    /** Adds the tasks, acting on the pools {@code pools} gives; call it once per environment. */
    static void addTo(Environment environment, Supplier<List<ManagedHikariDataSource>> pools) {
        List<PoolTask> tasks = List.of(new EvictTask(pools), new SuspensionTask(pools, true),
            new SuspensionTask(pools, false), new ResizeTask(pools), new StatusTask(pools));
        tasks.forEach(environment.admin()::addTask);
        environment.admin().addFilter(FILTER_NAME, new TaskFilter(tasks))
            .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/tasks/*");
    }

    List<ManagedHikariDataSource> pools() {
        return blocks.stream().flatMap(block -> block.get().stream()).distinct().toList();
    }

    /**
     * Runs a pool task in front of Dropwizard's task servlet, which answers any exception with a 500 and an ERROR
     * log: a refusal gets its own status (400 or 409) and message here instead.
     */
    static final class TaskFilter implements Filter {
        private final Map<String, PoolTask> tasksByPath = new LinkedHashMap<>();

        TaskFilter(List<PoolTask> tasks) {
            // the task servlet finds a task by the path after /tasks
            tasks.forEach(task -> tasksByPath.put("/" + task.getName(), task));
        }

        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
            HttpServletRequest http = (HttpServletRequest) request;
            PoolTask task = tasksByPath.get(http.getPathInfo());
            if (task == null || !"POST".equals(http.getMethod())) {
                chain.doFilter(request, response);
                return;
            }
            Map<String, List<String>> parameters = new LinkedHashMap<>();
            http.getParameterMap().forEach((name, values) -> parameters.put(name, Arrays.asList(values)));
            HttpServletResponse answer = (HttpServletResponse) response;
            answer.setContentType("text/plain;charset=UTF-8");
            PoolTask.Action checked;
            try {
                checked = task.check(parameters);
            } catch (PoolTask.Refusal refusal) {
                answer.setStatus(refusal.status());
                answer.getWriter().println(requireNonNull(refusal.getMessage()));
                return;
            }
            try {
                checked.run(answer.getWriter());
            } catch (Exception e) {
                throw new ServletException(task.getName() + " failed", e);
            }
        }
    }
}
