package io.github.dropwizardhikari.holders;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.PoolHooks;
import jakarta.servlet.DispatcherType;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.jspecify.annotations.Nullable;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Who holds the pool: for each connection borrowed, the resource method ({@code GET /reports/{id}}), admin task or
 * thread that holds it. A borrow that times out says so in its message (HikariCP's exception, its first line
 * unchanged, then the holders, longest first), logged at most once per {@code logInterval}; the admin task
 * {@code pool-holders} lists the holds now; {@code <pool>.pool.Holders.<holder>.Usage} (histogram, ms held) and
 * {@code .Borrows} (counter) count them per resource method or task, {@code other} for the rest; and a hold past
 * the pool's {@code leakDetectionThreshold} is warned about once, naming its holder.
 *
 * <pre>{@code
 * hikari:
 *   extensions:
 *     - type: holders
 *     - type: fair-borrowing
 * }</pre>
 *
 * <p>Wherever it is listed, it sees the timeouts of the other extensions too (a borrow refused by
 * {@code fair-borrowing}'s gate), and labels the borrower, on whose thread the core reports each borrow.</p>
 *
 * <table>
 * <caption>Settings</caption>
 * <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 * <tr><td>{@code logInterval}</td><td>1 minute</td><td>At most one log line of the holders per pool per interval,
 * when borrows time out.</td></tr>
 * <tr><td>{@code summaryLines}</td><td>5</td><td>The holders named in a timeout's message and its log line, the
 * rest counted on one line.</td></tr>
 * <tr><td>{@code stackAtBorrow}</td><td>{@code false}</td><td>Capture each borrow's stack, for
 * {@code pool-holders?stack=true} (a few microseconds per borrow).</td></tr>
 * </table>
 */
@JsonTypeName("holders")
public class HoldersExtension implements PoolExtension {
    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    private Duration logInterval = Duration.minutes(1);
    @Min(1)
    @Max(100)
    private int summaryLines = 5;
    private boolean stackAtBorrow;

    private final Labels labels = new Labels();
    private final Map<String, PoolHolds> running = new ConcurrentHashMap<>();

    @JsonProperty
    public Duration getLogInterval() {
        return logInterval;
    }

    @JsonProperty
    public void setLogInterval(Duration logInterval) {
        this.logInterval = logInterval;
    }

    @JsonProperty
    public int getSummaryLines() {
        return summaryLines;
    }

    @JsonProperty
    public void setSummaryLines(int summaryLines) {
        this.summaryLines = summaryLines;
    }

    @JsonProperty
    public boolean isStackAtBorrow() {
        return stackAtBorrow;
    }

    @JsonProperty
    public void setStackAtBorrow(boolean stackAtBorrow) {
        this.stackAtBorrow = stackAtBorrow;
    }

    @Override
    public void run(Environment environment, Supplier<List<ManagedHikariDataSource>> pools) {
        environment.jersey().register(new RequestLabelListener(labels));
        environment.admin().addFilter("dropwizard-hikari-holders-" + System.identityHashCode(this),
                new TaskLabelFilter(labels))
            .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/tasks/*");
        HoldersTask.register(environment, this);
    }

    @Override
    public PoolHooks attach(HikariConfig config, MetricRegistry metrics) {
        PoolHolds holds = new PoolHolds(config.getPoolName(), config.getMaximumPoolSize(), this, labels, metrics);
        running.put(holds.poolName(), holds);
        return holds;
    }

    /** The pool is stopping: the task no longer lists it. */
    void forget(PoolHolds holds) {
        running.remove(holds.poolName(), holds);
    }

    /** @return the holds of the running pool of this block named {@code poolName} */
    @Nullable
    PoolHolds holds(String poolName) {
        return running.get(poolName);
    }

    Labels labels() {
        return labels;
    }

    List<String> poolNames() {
        return running.keySet().stream().sorted().toList();
    }

    @Override
    public String toString() {
        return "holders";
    }
}
