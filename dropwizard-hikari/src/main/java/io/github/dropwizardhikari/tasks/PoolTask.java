package io.github.dropwizardhikari.tasks;

import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.servlets.tasks.Task;
import io.github.dropwizardhikari.pool.ManagedHikariDataSource;
import jakarta.servlet.ServletException;

import java.io.IOException;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * An admin task on the pool named by {@code pool}, or on the only pool. {@link PoolTasks.RefusalFilter} runs
 * {@link #check} before Dropwizard's task servlet (which answers every exception with a 500), and
 * {@link #execute} then runs what was checked, so the pool acted on is the one the check found.
 */
abstract class PoolTask extends Task {
    static final String POOL = "pool";

    private final KnownPools pools;
    private final Set<String> parameters;
    // what PoolTasks.RefusalFilter checked for the request this thread is serving, until the servlet has run the task
    private final ThreadLocal<Action> checkedRequest = new ThreadLocal<>();

    /** @param parameters the parameters the task takes besides {@code pool} */
    protected PoolTask(String name, KnownPools pools, String... parameters) {
        super(name);
        this.pools = requireNonNull(pools, "pools");
        this.parameters = new TreeSet<>(List.of(parameters));
        this.parameters.add(POOL);
    }

    @FunctionalInterface
    protected interface Action {
        void run(PrintWriter output) throws Exception;
    }

    @FunctionalInterface
    interface RestOfChain {
        void proceed() throws IOException, ServletException;
    }

    @Override
    public final void execute(Map<String, List<String>> parameters, PrintWriter output) throws Exception {
        Action checked = checkedRequest.get();
        (checked != null ? checked : check(parameters)).run(output);
    }

    /** Lets the request go on to the task servlet, whose {@link #execute} on this thread runs {@code checked}. */
    final void proceedChecked(Action checked, RestOfChain rest) throws IOException, ServletException {
        checkedRequest.set(requireNonNull(checked, "checked"));
        try {
            rest.proceed();
        } finally {
            checkedRequest.remove();
        }
    }

    /** @throws TaskRefusal naming the parameter or the state that stops the task; nothing has changed */
    public final Action check(Map<String, List<String>> parameters) {
        for (String parameter : parameters.keySet()) {
            if (!this.parameters.contains(parameter)) {
                throw TaskRefusal.badRequest(getName() + " takes no parameter '" + parameter + "'; it takes "
                    + String.join(", ", this.parameters));
            }
        }
        return prepare(selectPool(parameters), parameters);
    }

    /** Checks the task's own parameters and the pool's state, changing nothing. */
    protected abstract Action prepare(ManagedHikariDataSource pool, Map<String, List<String>> parameters);

    private ManagedHikariDataSource selectPool(Map<String, List<String>> parameters) {
        List<ManagedHikariDataSource> open = pools.all().stream()
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
                throw TaskRefusal.conflict("no HikariCP pool has been built in this application yet");
            }
            throw TaskRefusal.badRequest("this application has several pools (" + names + "); name one with "
                + "pool=<name>");
        }
        return open.stream()
            .filter(pool -> pool.getPoolName().equals(wanted.get()))
            .findFirst()
            .orElseThrow(() -> TaskRefusal.badRequest("no pool named '" + wanted.get() + "'; the pools are: "
                + (names.isEmpty() ? "none yet" : names)));
    }

    /** @return the parameter's only value; a blank value counts as not given, two values as a refusal */
    protected static Optional<String> single(Map<String, List<String>> parameters, String name) {
        List<String> values = parameters.getOrDefault(name, List.of());
        if (values.size() > 1) {
            throw TaskRefusal.badRequest(name + " was given " + values.size() + " times; give it once");
        }
        return values.stream().map(String::trim).filter(value -> !value.isEmpty()).findFirst();
    }

    /** @throws TaskRefusal when the pool has not started yet or has been closed */
    protected final HikariDataSource started(ManagedHikariDataSource pool) {
        if (!pool.isRunning()) {
            throw TaskRefusal.conflict("pool " + pool.getPoolName() + " has not started yet (it starts on first "
                + "use); " + getName() + " acts on a started pool");
        }
        try {
            // the pool is running, so this does not start it
            return pool.unwrap(HikariDataSource.class);
        } catch (SQLException e) {
            throw TaskRefusal.conflict("pool " + pool.getPoolName() + " is closed");
        }
    }
}
