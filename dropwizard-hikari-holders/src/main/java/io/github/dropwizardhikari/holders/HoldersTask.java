package io.github.dropwizardhikari.holders;

import com.zaxxer.hikari.HikariPoolMXBean;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jetty.MutableServletContextHandler;
import io.dropwizard.servlets.tasks.Task;
import jakarta.servlet.DispatcherType;

import java.io.PrintWriter;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@code pool-holders}: the holders of a pool's connections now ({@code POST /tasks/pool-holders?pool=NAME}; the
 * pool may be left out when there is one), a summary line per holder, then each hold, longest first: how long, by
 * what, on which thread, and with {@code stack=true} the stack of the borrow when {@code stackAtBorrow} captured
 * it. It prints names and durations only: no SQL, parameter or request body is ever recorded. A request it cannot
 * answer is refused with 400 or 409 and the reason, by {@link HoldersTaskFilter}.
 *
 * <p>Dropwizard's task servlet keeps one task per name, so one task serves every block that names the extension:
 * the admin context holds the blocks as an attribute.</p>
 */
final class HoldersTask extends Task {
    static final String NAME = "pool-holders";
    private static final String FILTER_NAME = "dropwizard-hikari-pool-holders";
    private static final String POOL = "pool";
    private static final String STACK = "stack";
    private static final Set<String> PARAMETERS = Set.of(POOL, STACK);

    private final List<HoldersExtension> blocks = new CopyOnWriteArrayList<>();

    HoldersTask() {
        super(NAME);
    }

    static void register(Environment environment, HoldersExtension block) {
        MutableServletContextHandler admin = environment.getAdminContext();
        synchronized (admin) {
            Object registered = admin.getAttribute(HoldersTask.class.getName());
            HoldersTask task = registered instanceof HoldersTask known ? known : new HoldersTask();
            if (registered == null) {
                admin.setAttribute(HoldersTask.class.getName(), task);
                environment.admin().addTask(task);
                environment.admin().addFilter(FILTER_NAME, new HoldersTaskFilter(task))
                    .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/tasks/" + NAME);
            }
            task.add(block);
        }
    }

    void add(HoldersExtension block) {
        blocks.add(block);
    }

    /** Why the task printed nothing: 400 for a request to correct, 409 while no pool has started. */
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

    /** A request checked: the pool's holds, and whether to print the stacks of their borrows. */
    record View(PoolHolds holds, boolean stacks) {
        void print(PrintWriter output) {
            HoldersTask.print(holds, stacks, output);
        }
    }

    @Override
    public void execute(Map<String, List<String>> parameters, PrintWriter output) {
        check(parameters).print(output);
    }

    /** @throws Refusal naming the parameter, or listing the pools, when the request cannot be answered */
    View check(Map<String, List<String>> parameters) {
        for (String parameter : parameters.keySet()) {
            if (!PARAMETERS.contains(parameter)) {
                throw new Refusal(400, NAME + " takes no parameter '" + parameter + "'; it takes pool, stack");
            }
        }
        String stack = single(parameters, STACK).orElse("false");
        if (!"true".equalsIgnoreCase(stack) && !"false".equalsIgnoreCase(stack)) {
            throw new Refusal(400, "stack must be true or false; got '" + stack + "'");
        }
        List<String> names = blocks.stream().flatMap(block -> block.poolNames().stream()).sorted().toList();
        Optional<String> wanted = single(parameters, POOL);
        if (wanted.isEmpty() && names.isEmpty()) {
            throw new Refusal(409, "no pool of a block that names the holders extension has started yet (a pool "
                + "starts on first use)");
        }
        if (wanted.isEmpty() && names.size() > 1) {
            throw new Refusal(400, "this application has several pools (" + String.join(", ", names)
                + "); name one with pool=<name>");
        }
        String name = wanted.orElseGet(() -> names.get(0));
        PoolHolds holds = blocks.stream().map(block -> block.holds(name)).filter(Objects::nonNull).findFirst()
            .orElseThrow(() -> new Refusal(400, "no pool named '" + name + "'; the pools are: "
                + (names.isEmpty() ? "none yet" : String.join(", ", names))));
        return new View(holds, Boolean.parseBoolean(stack));
    }

    /** @return the parameter's only value; a blank value counts as not given, two values as a refusal */
    private static Optional<String> single(Map<String, List<String>> parameters, String name) {
        List<String> values = parameters.getOrDefault(name, List.of());
        if (values.size() > 1) {
            throw new Refusal(400, name + " was given " + values.size() + " times; give it once");
        }
        return values.stream().map(String::trim).filter(value -> !value.isEmpty()).findFirst();
    }

    static void print(PoolHolds holds, boolean stacks, PrintWriter output) {
        output.println("pool: " + holds.poolName());
        HikariPoolMXBean counts = holds.counts();
        output.println("connections: " + (counts == null ? "not started (it starts on first use)"
            : counts.getTotalConnections() + " total, " + counts.getActiveConnections() + " in use, "
            + counts.getIdleConnections() + " idle, " + counts.getThreadsAwaitingConnection() + " waiting"));
        long now = System.nanoTime();
        List<Hold> all = holds.holds();
        output.println("holders, longest first:" + (all.isEmpty() ? " none" : ""));
        holds.summary(now).forEach(line -> output.println("  " + line));
        output.println("held now, longest first:" + (all.isEmpty() ? " none" : ""));
        for (Hold hold : all) {
            output.println("  " + PoolHolds.seconds(hold.heldNanos(now)) + "  " + hold.holder.name() + "  thread \""
                + hold.thread + "\"");
            if (stacks && hold.stack != null) {
                for (StackTraceElement frame : hold.stack.getStackTrace()) {
                    output.println("      at " + frame);
                }
            }
        }
        if (stacks && all.stream().allMatch(hold -> hold.stack == null) && !all.isEmpty()) {
            output.println("no stack was captured: set stackAtBorrow: true in the holders extension to capture them");
        }
    }
}
