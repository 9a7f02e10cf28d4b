package io.github.dropwizardhikari.holders;

import com.zaxxer.hikari.HikariPoolMXBean;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jetty.MutableServletContextHandler;
import io.dropwizard.servlets.tasks.Task;
import org.jspecify.annotations.Nullable;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@code pool-holders}: the holders of a pool's connections now ({@code POST /tasks/pool-holders?pool=NAME}; the
 * pool may be left out when there is one), a summary line per holder, then each hold, longest first: how long, by
 * what, on which thread, and with {@code stack=true} the stack of the borrow when {@code stackAtBorrow} captured
 * it. It prints names and durations only: no SQL, parameter or request body is ever recorded.
 *
 * <p>Dropwizard's task servlet keeps one task per name, so one task serves every block that names the extension:
 * the admin context holds the blocks as an attribute.</p>
 */
final class HoldersTask extends Task {
    static final String NAME = "pool-holders";
    private static final Set<String> PARAMETERS = Set.of("pool", "stack");

    private final List<HoldersExtension> blocks = new CopyOnWriteArrayList<>();

    private HoldersTask() {
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
            }
            task.blocks.add(block);
        }
    }

    @Override
    public void execute(Map<String, List<String>> parameters, PrintWriter output) {
        for (String parameter : parameters.keySet()) {
            if (!PARAMETERS.contains(parameter)) {
                output.println(NAME + " takes no parameter '" + parameter + "'; it takes pool, stack");
                return;
            }
        }
        List<String> names = blocks.stream().flatMap(block -> block.poolNames().stream()).sorted().toList();
        String wanted = first(parameters, "pool");
        if (wanted == null && names.size() != 1) {
            output.println(names.isEmpty() ? "no pool of a block that names the holders extension has been built yet"
                : "this application has several pools (" + String.join(", ", names) + "); name one with pool=<name>");
            return;
        }
        String name = wanted == null ? names.get(0) : wanted;
        PoolHolds holds = blocks.stream().map(block -> block.holds(name)).filter(Objects::nonNull).findFirst()
            .orElse(null);
        if (holds == null) {
            output.println("no pool named '" + name + "'; the pools are: "
                + (names.isEmpty() ? "none yet" : String.join(", ", names)));
            return;
        }
        print(holds, "true".equalsIgnoreCase(first(parameters, "stack")), output);
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

    @Nullable
    private static String first(Map<String, List<String>> parameters, String name) {
        return parameters.getOrDefault(name, List.of()).stream().map(String::trim).filter(value -> !value.isEmpty())
            .findFirst().orElse(null);
    }
}
