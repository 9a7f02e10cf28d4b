package io.github.dropwizardhikari.operations;

import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jetty.MutableServletContextHandler;
import io.dropwizard.servlets.tasks.Task;
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
import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * An admin task on the pool named by {@code pool}, or on the only pool: {@code pool-status} ({@link StatusTask}) and,
 * for the blocks whose {@code changeTasks} list them, {@code pool-evict}, {@code pool-suspend}, {@code pool-resume},
 * {@code pool-resize} ({@link ChangeTasks}), each a POST to {@code /tasks/<name>}. One set serves every block of the
 * application that names the extension: Dropwizard's task servlet keeps one task per name (5.0 replaces an earlier
 * one silently), so a later block adds its pools to the set the first one registered, which the admin context holds
 * as an attribute, and a change task is registered when the first block lists it.
 */
abstract class PoolTask extends Task {
    static final String POOL = "pool";
    static final String FILTER_NAME = "dropwizard-hikari-pool-tasks";

    private final Supplier<List<ManagedHikariDataSource>> pools;
    private final Set<String> parameters;

    /** @param parameters the parameters the task takes besides {@code pool} */
    protected PoolTask(String name, Supplier<List<ManagedHikariDataSource>> pools, String... parameters) {
        super(name);
        this.pools = requireNonNull(pools, "pools");
        this.parameters = new TreeSet<>(List.of(parameters));
        this.parameters.add(POOL);
    }

    @FunctionalInterface
    protected interface Action {
        void run(PrintWriter output) throws Exception;
    }

    /** Why a task did nothing: 400 for a request to correct, 409 for a pool whose state does not allow it. */
    static final class Refusal extends RuntimeException {
        private static final long serialVersionUID = 1L;

        private final int status;

        private Refusal(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }

        int status() {
            return status;
        }
    }

    static Refusal badRequest(String message) {
        return new Refusal(400, message);
    }

    static Refusal conflict(String message) {
        return new Refusal(409, message);
    }

    @Override
    public final void execute(Map<String, List<String>> parameters, PrintWriter output) throws Exception {
        check(parameters).run(output);
    }

    /** @throws Refusal naming the parameter or the state that stops the task; nothing has changed */
    public final Action check(Map<String, List<String>> parameters) {
        for (String parameter : parameters.keySet()) {
            if (!this.parameters.contains(parameter)) {
                throw badRequest(getName() + " takes no parameter '" + parameter + "'; it takes "
                    + String.join(", ", this.parameters));
            }
        }
        return prepare(selectPool(parameters), parameters);
    }

    /** Checks the task's own parameters and the pool's state, changing nothing. */
    protected abstract Action prepare(ManagedHikariDataSource pool, Map<String, List<String>> parameters);

    private ManagedHikariDataSource selectPool(Map<String, List<String>> parameters) {
        List<ManagedHikariDataSource> open = pools.get().stream()
            .filter(pool -> !pool.isClosed())
            .sorted(Comparator.comparing(ManagedHikariDataSource::getPoolName))
            .toList();
        String names = open.stream().map(ManagedHikariDataSource::getPoolName).collect(Collectors.joining(", "));
        Optional<String> wanted = single(parameters, POOL);
        if (wanted.isEmpty()) {
            if (open.size() == 1) {
                return open.get(0);
            }
            if (open.isEmpty()) {
                throw conflict("no pool of a block that names the operations extension has been built yet"
                    + servedPools());
            }
            throw badRequest("this application has several pools (" + names + "); name one with pool=<name>");
        }
        return open.stream()
            .filter(pool -> pool.getPoolName().equals(wanted.get()))
            .findFirst()
            .orElseThrow(() -> badRequest("no pool named '" + wanted.get() + "'; the pools are: "
                + (names.isEmpty() ? "none yet" : names) + servedPools()));
    }

    private String servedPools() {
        return this instanceof StatusTask ? "" : " (" + getName() + " is on for the pools whose block lists it in "
            + "the operations extension's changeTasks)";
    }

    /** @return the parameter's only value; a blank value counts as not given, two values as a refusal */
    protected static Optional<String> single(Map<String, List<String>> parameters, String name) {
        List<String> values = parameters.getOrDefault(name, List.of());
        if (values.size() > 1) {
            throw badRequest(name + " was given " + values.size() + " times; give it once");
        }
        return values.stream().map(String::trim).filter(value -> !value.isEmpty()).findFirst();
    }

    /** @throws Refusal when the pool has not started yet or has been closed */
    protected final HikariDataSource started(ManagedHikariDataSource pool) {
        if (!pool.isRunning()) {
            throw conflict("pool " + pool.getPoolName() + " has not started yet (it starts on first use); "
                + getName() + " acts on a started pool");
        }
        try {
            // the pool is running, so this does not start it
            return pool.unwrap(HikariDataSource.class);
        } catch (SQLException e) {
            throw conflict("pool " + pool.getPoolName() + " is closed");
        }
    }

    /**
     * Adds {@code pool-status} and the change tasks listed to the environment's admin port, or {@code pools} to the
     * tasks a block added before.
     */
    static void register(Environment environment, Supplier<List<ManagedHikariDataSource>> pools,
                         Set<ChangeTask> changeTasks) {
        MutableServletContextHandler admin = environment.getAdminContext();
        synchronized (admin) {
            Object registered = admin.getAttribute(Blocks.class.getName());
            Blocks blocks = registered instanceof Blocks known ? known : new Blocks();
            if (registered == null) {
                admin.setAttribute(Blocks.class.getName(), blocks);
                blocks.add(environment, new StatusTask(blocks::pools));
                environment.admin().addFilter(FILTER_NAME, new TaskFilter(blocks.tasksByPath))
                    .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/tasks/*");
            }
            for (ChangeTask task : changeTasks) {
                if (!blocks.tasksByPath.containsKey("/" + task)) {
                    blocks.add(environment, changeTask(task, () -> blocks.pools(task)));
                }
            }
            blocks.add(requireNonNull(pools, "pools"), changeTasks);
        }
    }

    private static PoolTask changeTask(ChangeTask task, Supplier<List<ManagedHikariDataSource>> pools) {
        return switch (task) {
            case POOL_EVICT -> new ChangeTasks.EvictTask(pools);
            case POOL_RESIZE -> new ChangeTasks.ResizeTask(pools);
            case POOL_SUSPEND -> new ChangeTasks.SuspensionTask(pools, true);
            case POOL_RESUME -> new ChangeTasks.SuspensionTask(pools, false);
        };
    }

    /**
     * Each block's pools, asked at every request, so a pool built after the tasks were registered is found too, and
     * the tasks registered so far.
     */
    static final class Blocks {
        private final List<Block> blocks = new CopyOnWriteArrayList<>();
        // the task servlet finds a task by the path after /tasks
        private final Map<String, PoolTask> tasksByPath = new ConcurrentHashMap<>();

        private record Block(Supplier<List<ManagedHikariDataSource>> pools, Set<ChangeTask> changeTasks) {
        }

        void add(Supplier<List<ManagedHikariDataSource>> pools, Set<ChangeTask> changeTasks) {
            blocks.add(new Block(pools, Set.copyOf(changeTasks)));
        }

        void add(Environment environment, PoolTask task) {
            environment.admin().addTask(task);
            tasksByPath.put("/" + task.getName(), task);
        }

        /** @return the pools of every block that names the extension */
        List<ManagedHikariDataSource> pools() {
            return blocks.stream().flatMap(block -> block.pools().get().stream()).distinct().toList();
        }

        /** @return the pools of the blocks that list {@code task} */
        List<ManagedHikariDataSource> pools(ChangeTask task) {
            return blocks.stream().filter(block -> block.changeTasks().contains(task))
                .flatMap(block -> block.pools().get().stream()).distinct().toList();
        }
    }

    /**
     * Runs a pool task in front of Dropwizard's task servlet, which answers any exception with a 500 and an ERROR
     * log: a refusal gets its own status (400 or 409) and message here instead.
     */
    static final class TaskFilter implements Filter {
        private final Map<String, PoolTask> tasksByPath;

        /** @param tasksByPath the tasks by {@code /<name>}, to which later blocks may add */
        TaskFilter(Map<String, PoolTask> tasksByPath) {
            this.tasksByPath = tasksByPath;
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
            try {
                // checked once, and the pool acted on is the one the check found
                task.check(parameters).run(answer.getWriter());
            } catch (Refusal refusal) {
                answer.setStatus(refusal.status());
                answer.getWriter().println(requireNonNull(refusal.getMessage()));
            } catch (Exception e) {
                throw new ServletException(task.getName() + " failed", e);
            }
        }
    }
}
