package io.github.dropwizardhikari.operations;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.core.setup.Environment;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.PoolHooks;
import jakarta.validation.constraints.NotNull;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * Operations for the pools of one block: admin tasks, the sizing log, the transaction-pooler warnings and,
 * on request, the gauge names of Dropwizard's Tomcat pool.
 *
 * <pre>{@code
 * hikari:
 *   url: jdbc:postgresql://db/app
 *   extensions:
 *     - type: operations
 *       pooler: transaction
 * }</pre>
 *
 * <table>
 * <caption>Settings</caption>
 * <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 * <tr><td>{@code adminTasks}</td><td>{@code true}</td><td>The pool tasks on the admin port ({@code pool-status},
 * ...), shared by every block that names the extension.</td></tr>
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
            PoolTask.register(environment, pools);
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
