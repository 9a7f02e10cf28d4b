package io.github.dropwizardhikari.operations;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.validation.ValidationMethod;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.PoolHooks;
import jakarta.validation.constraints.NotNull;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Operations for the pools of one block: the {@code pool-status} admin task, the sizing log, the transaction-pooler
 * warnings and, on request, the tasks that change a running pool and the gauge names of Dropwizard's Tomcat pool.
 * Named alone it changes no pool: a task that does is registered only when {@code changeTasks} lists it.
 *
 * <pre>{@code
 * hikari:
 *   url: jdbc:postgresql://db/app
 *   extensions:
 *     - type: operations
 *       pooler: transaction
 *       changeTasks: [pool-evict]
 * }</pre>
 *
 * <table>
 * <caption>Settings</caption>
 * <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 * <tr><td>{@code adminTasks}</td><td>{@code true}</td><td>{@code pool-status} on the admin port, shared by every
 * block that names the extension; {@code false} turns every task off.</td></tr>
 * <tr><td>{@code changeTasks}</td><td>none</td><td>The tasks that change a running pool to register for this
 * block's pools: {@code pool-evict}, {@code pool-resize}, {@code pool-suspend} with {@code pool-resume}. A task not
 * listed by any block is not registered.</td></tr>
 * <tr><td>{@code sizingLog}</td><td>{@code true}</td><td>At each start, {@code maxSize} as a share of the server's
 * connection limit.</td></tr>
 * <tr><td>{@code pooler}</td><td>{@code none}</td><td>{@code transaction} behind a transaction pooler: the settings
 * it breaks are warned about, and the sizing log does not measure against the server behind it.</td></tr>
 * <tr><td>{@code tomcatMetricNames}</td><td>{@code false}</td><td>Also the gauges of Dropwizard's Tomcat pool
 * ({@code io.dropwizard.db.ManagedPooledDataSource.<pool>.*}).</td></tr>
 * </table>
 */
@JsonTypeName("operations")
public class OperationsExtension implements PoolExtension {
    private static final Logger LOGGER = LoggerFactory.getLogger(OperationsExtension.class);

    private boolean adminTasks = true;
    @NotNull
    private Set<ChangeTask> changeTasks = EnumSet.noneOf(ChangeTask.class);
    private boolean sizingLog = true;
    @NotNull
    private PoolerMode pooler = PoolerMode.NONE;
    private boolean tomcatMetricNames;

    // the block's settings do not change between starts: their warnings are logged at the first one
    private final AtomicBoolean poolerChecked = new AtomicBoolean();

    @JsonProperty
    public boolean isAdminTasks() {
        return adminTasks;
    }

    @JsonProperty
    public void setAdminTasks(boolean adminTasks) {
        this.adminTasks = adminTasks;
    }

    @JsonProperty
    public Set<ChangeTask> getChangeTasks() {
        return changeTasks;
    }

    @JsonProperty
    public void setChangeTasks(Set<ChangeTask> changeTasks) {
        this.changeTasks = changeTasks;
    }

    @JsonIgnore
    @ValidationMethod(message = "changeTasks lists pool-suspend and pool-resume together: a suspended pool needs "
        + "pool-resume, and pool-resume acts only on a suspended pool")
    public boolean isSuspensionPaired() {
        return changeTasks == null
            || changeTasks.contains(ChangeTask.POOL_SUSPEND) == changeTasks.contains(ChangeTask.POOL_RESUME);
    }

    @JsonIgnore
    @ValidationMethod(message = "changeTasks needs adminTasks: true (adminTasks: false turns every task off)")
    public boolean isChangeTasksWithAdminTasks() {
        return adminTasks || changeTasks == null || changeTasks.isEmpty();
    }

    @JsonProperty
    public boolean isSizingLog() {
        return sizingLog;
    }

    @JsonProperty
    public void setSizingLog(boolean sizingLog) {
        this.sizingLog = sizingLog;
    }

    @JsonProperty
    public PoolerMode getPooler() {
        return pooler;
    }

    @JsonProperty
    public void setPooler(PoolerMode pooler) {
        this.pooler = pooler;
    }

    @JsonProperty
    public boolean isTomcatMetricNames() {
        return tomcatMetricNames;
    }

    @JsonProperty
    public void setTomcatMetricNames(boolean tomcatMetricNames) {
        this.tomcatMetricNames = tomcatMetricNames;
    }

    @Override
    public void run(Environment environment, Supplier<List<ManagedHikariDataSource>> pools) {
        if (adminTasks) {
            PoolTask.register(environment, pools, changeTasks);
        }
    }

    @Override
    public PoolHooks attach(HikariConfig config, MetricRegistry metrics) {
        if (pooler == PoolerMode.TRANSACTION && poolerChecked.compareAndSet(false, true)) {
            for (TransactionPoolerCheck.Warning warning : TransactionPoolerCheck.check(config)) {
                LOGGER.warn("Pool {}: {} cannot work as set behind a transaction pooler (pooler: {}): {}",
                    config.getPoolName(), warning.field(), pooler, warning.reason());
            }
        }
        return new Hooks(config.getPoolName(), metrics);
    }

    /** The sizing log and the Tomcat-named gauges of one running pool. */
    private final class Hooks implements PoolHooks {
        private final String poolName;
        private final MetricRegistry metrics;
        @Nullable
        private TomcatMetricNames gauges;
        private volatile boolean stopping;

        Hooks(String poolName, MetricRegistry metrics) {
            this.poolName = poolName;
            this.metrics = metrics;
        }

        @Override
        public synchronized void started(HikariDataSource pool) {
            if (tomcatMetricNames) {
                gauges = TomcatMetricNames.register(metrics, poolName, pool.getHikariPoolMXBean());
            }
            if (sizingLog) {
                // a borrow like any other, so it opens no connection beyond maxSize; the pool is its configuration
                new PoolSizing(pooler).reportInBackground(pool, pool::getConnection, () -> stopping);
            }
        }

        @Override
        public synchronized void stopping() {
            stopping = true;
            if (gauges != null) {
                gauges.remove();
                gauges = null;
            }
        }
    }
}
