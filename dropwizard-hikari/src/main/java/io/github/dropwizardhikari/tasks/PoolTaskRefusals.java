package io.github.dropwizardhikari.tasks;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Runs a pool task's checks in front of Dropwizard's task servlet, which answers any exception with a 500 and an
 * ERROR log: a refusal gets its own status (400 or 409) and message here instead.
 */
final class PoolTaskRefusals implements Filter {
    private final Map<String, PoolTask> tasksByPath = new LinkedHashMap<>();

    PoolTaskRefusals(List<PoolTask> tasks) {
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
        PoolTask.Action checked;
        try {
            checked = task.check(parameters(http));
        } catch (TaskRefusal refusal) {
            HttpServletResponse httpResponse = (HttpServletResponse) response;
            httpResponse.setStatus(refusal.getStatus());
            httpResponse.setContentType("text/plain;charset=UTF-8");
            httpResponse.setCharacterEncoding(StandardCharsets.UTF_8.name());
            httpResponse.getWriter().println(requireNonNull(refusal.getMessage()));
            return;
        }
        task.proceedChecked(checked, () -> chain.doFilter(request, response));
    }

    private static Map<String, List<String>> parameters(HttpServletRequest request) {
        Map<String, List<String>> parameters = new LinkedHashMap<>();
        request.getParameterMap().forEach((name, values) -> parameters.put(name, Arrays.asList(values)));
        return parameters;
    }
}
