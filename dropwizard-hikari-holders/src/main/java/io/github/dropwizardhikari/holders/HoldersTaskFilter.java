package io.github.dropwizardhikari.holders;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Answers {@code POST /tasks/pool-holders} in front of Dropwizard's task servlet, which answers any exception with a
 * 500 and an ERROR log: a refused request gets its status (400 or 409) and its reason as plain text here instead,
 * as the operations extension's pool tasks answer.
 */
final class HoldersTaskFilter implements Filter {
    private final HoldersTask task;

    HoldersTaskFilter(HoldersTask task) {
        this.task = task;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
        throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        if (!"POST".equals(http.getMethod())) {
            // the task servlet answers other methods as it answers them for every task
            chain.doFilter(request, response);
            return;
        }
        Map<String, List<String>> parameters = new LinkedHashMap<>();
        http.getParameterMap().forEach((name, values) -> parameters.put(name, Arrays.asList(values)));
        HttpServletResponse answer = (HttpServletResponse) response;
        answer.setContentType("text/plain;charset=UTF-8");
        HoldersTask.View view;
        try {
            view = task.check(parameters);
        } catch (HoldersTask.Refusal refusal) {
            answer.setStatus(refusal.status());
            answer.getWriter().println(Objects.requireNonNull(refusal.getMessage()));
            return;
        }
        view.print(answer.getWriter());
    }
}
