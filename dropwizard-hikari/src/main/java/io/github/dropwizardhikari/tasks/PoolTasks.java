package io.github.dropwizardhikari.tasks;

import io.dropwizard.core.setup.Environment;
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

import static java.util.Objects.requireNonNull;

/**
 * The pool tasks on the admin port: {@code pool-evict}, {@code pool-suspend}, {@code pool-resume},
 * {@code pool-resize} and {@code pool-status}, each a POST to {@code /tasks/<name>} that acts on the pool named by
 * {@code pool=<name>}, or on the only pool.
 */
public final class PoolTasks {
    private PoolTasks() {
    }

    /** Call it once per environment. */
    public static void register(Environment environment, KnownPools pools) {
        List<PoolTask> tasks = List.of(new EvictTask(pools), new SuspensionTask(pools, true),
            new SuspensionTask(pools, false), new ResizeTask(pools), new StatusTask(pools));
        tasks.forEach(environment.admin()::addTask);
        environment.admin().addFilter("dropwizard-hikari-pool-tasks", new RefusalFilter(tasks))
            .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/tasks/*");
    }

    /**
     * Runs a pool task's checks in front of Dropwizard's task servlet, which answers any exception with a 500 and
     * an ERROR log: a refusal gets its own status (400 or 409) and message here instead.
     */
    static final class RefusalFilter implements Filter {
        private final Map<String, PoolTask> tasksByPath = new LinkedHashMap<>();

        RefusalFilter(List<PoolTask> tasks) {
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
            PoolTask.Action checked;
            try {
                checked = task.check(parameters);
            } catch (TaskRefusal refusal) {
                HttpServletResponse httpResponse = (HttpServletResponse) response;
                httpResponse.setStatus(refusal.getStatus());
                httpResponse.setContentType("text/plain;charset=UTF-8");
                httpResponse.getWriter().println(requireNonNull(refusal.getMessage()));
                return;
            }
            task.proceedChecked(checked, () -> chain.doFilter(request, response));
        }
    }
}
