package io.github.dropwizardhikari.holders;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;

import java.io.IOException;

/** Names the admin task ({@code task "pool-evict"}) as the holder of what its thread borrows while it runs. */
final class TaskLabelFilter implements Filter {
    private final Labels labels;

    TaskLabelFilter(Labels labels) {
        this.labels = labels;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
        throws IOException, ServletException {
        String path = ((HttpServletRequest) request).getPathInfo();
        // the task servlet finds a task by the path after /tasks/
        labels.set(path == null || path.length() < 2 ? null : Holder.task(path.substring(1)));
        try {
            chain.doFilter(request, response);
        } finally {
            labels.clear();
        }
    }
}
