package io.github.dropwizardhikari.pool;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.SQLExceptionOverride;
import io.github.dropwizardhikari.fairness.FairBorrowGate;
import io.github.dropwizardhikari.faults.BusyPoolConnectivityCheck;
import io.github.dropwizardhikari.faults.ConnectionErrors;
import io.github.dropwizardhikari.faults.ConnectionLossOverride;
import io.github.dropwizardhikari.faults.EvictOn;
import io.github.dropwizardhikari.faults.FailoverEviction;
import io.github.dropwizardhikari.faults.KnownOutageCheck;
import io.github.dropwizardhikari.faults.OutageRecovery;
import io.github.dropwizardhikari.metrics.QueueBeforeThePool;
import io.github.dropwizardhikari.metrics.TomcatMetricNames;
import io.github.dropwizardhikari.scaleout.PoolSizing;
import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * What the bundle adds to HikariCP's pool, each behind its own setting ({@link PoolOptions}): fair borrowing, the
 * fault handling (eviction of dead connections, failover eviction, outage recovery and the checks that know of an
 * outage), the Tomcat-named gauges and the sizing log. With all of them off, the pool is HikariCP's alone.
 */
final class PoolExtras {
    private static final long CHECK_SLACK_MILLIS = 500;

    private final String poolName;
    @Nullable
    private final MetricRegistry metrics;
    private final PoolOptions options;
    @Nullable
    private final SQLExceptionOverride userOverride;
    private final Object lock = new Object();

    // set before the pool is published, read after it
    @Nullable
    private volatile FairBorrowGate gate;
    @Nullable
    private volatile OutageRecovery recovery;
    @Nullable
    private FailoverEviction failover;
    @Nullable
    private TomcatMetricNames tomcatGauges;

    /**
     * @param userOverride the exception override the configuration names, if any: asked first, and it wins
     */
    PoolExtras(String poolName, @Nullable MetricRegistry metrics, PoolOptions options,
               @Nullable SQLExceptionOverride userOverride) {
        this.poolName = poolName;
        this.metrics = metrics;
        this.options = options;
        this.userOverride = userOverride;
    }

    /**
     * Sets the extras into HikariCP's configuration and opens the pool.
     *
     * @param queue receives the gate's queue, or {@link QueueBeforeThePool#NONE}, before HikariCP starts: the
     *              metrics tracker counts it as waiting
     */
    HikariDataSource open(HikariConfig config, Consumer<QueueBeforeThePool> queue) {
        // a configuration built without a registry still gets a gate; its metrics then go nowhere visible
        FairBorrowGate newGate = options.fairBorrowing() ? new FairBorrowGate(poolName, config.getMaximumPoolSize(),
            metrics == null ? new MetricRegistry() : metrics) : null;
        QueueBeforeThePool gateQueue = newGate == null ? QueueBeforeThePool.NONE : newGate;
        queue.accept(gateQueue);
        // the gate follows every runtime resize, whichever way it comes (pool-resize, JMX)
        IntConsumer resized = newGate == null ? newSize -> { } : newGate::resize;
        FaultHandling faults = options.faults();
        OutageRecovery newRecovery = null;
        FailoverEviction eviction = null;
        if (faults != null) {
            newRecovery = OutageRecovery.prepare(config, faults.recoveryProbeIntervalMillis());
            eviction = new FailoverEviction(poolName, faults.failoverEviction(), config.isReadOnly(),
                FaultHandling.FAILOVER_WINDOW_MILLIS);
            ConnectionErrors errors = ConnectionErrors.of(config.getJdbcUrl(), config.getDriverClassName(),
                config.getDataSourceClassName());
            config.setExceptionOverride(new ConnectionLossOverride(userOverride, errors,
                new EvictOn(faults.evictOn()), eviction));
        }
        HikariDataSource started;
        try {
            started = new GatedHikariDataSource(config, resized, gateQueue);
        } catch (RuntimeException e) {
            if (newGate != null) {
                newGate.unregister();
            }
            if (newRecovery != null) {
                newRecovery.close();
            }
            throw e;
        }
        synchronized (lock) {
            gate = newGate;
            if (newRecovery != null && eviction != null) {
                eviction.attach(started.getHikariPoolMXBean());
                failover = eviction;
                newRecovery.started(started, eviction::outageEnded);
                recovery = newRecovery;
            }
        }
        return started;
    }

    /**
     * Registers the Tomcat-named gauges and starts the sizing log, once the pool's own checks are registered.
     *
     * @param borrow a borrow like any other, through the gate: the sizing opens no connection outside maxSize
     * @throws IllegalStateException when another pool of this name has the gauges
     */
    void started(HikariDataSource started, HikariConfig config, Callable<Connection> borrow) {
        if (options.tomcatMetricNames() && metrics != null) {
            TomcatMetricNames gauges = TomcatMetricNames.register(metrics, poolName, started.getHikariPoolMXBean());
            synchronized (lock) {
                tomcatGauges = gauges;
            }
        }
        PoolSizing sizing = options.sizing();
        if (sizing != null) {
            sizing.reportInBackground(config, borrow);
        }
    }

    Connection borrow(HikariDataSource running) throws SQLException {
        OutageRecovery outages = recovery;
        return outages == null ? borrowThroughGate(running)
            : outages.outage().borrow(() -> borrowThroughGate(running));
    }

    private Connection borrowThroughGate(HikariDataSource running) throws SQLException {
        FairBorrowGate runningGate = gate;
        return runningGate == null ? running.getConnection()
            : runningGate.borrow(running, running.getConnectionTimeout());
    }

    /**
     * @return HikariCP's connectivity check, answering at once from what the pool knows of an outage, and
     * borrowing past a busy pool
     */
    HealthCheck connectivityCheck(HealthCheck hikariCheck, HikariDataSource started, long timeoutMillis) {
        OutageRecovery outages = recovery;
        if (outages == null) {
            return hikariCheck;
        }
        HealthCheck check = outages.probe().<HealthCheck>map(probe ->
            new BusyPoolConnectivityCheck(hikariCheck, started, probe, timeoutMillis)).orElse(hikariCheck);
        return new KnownOutageCheck(check, outages.outage(), poolName, timeoutMillis + CHECK_SLACK_MILLIS);
    }

    /** @return the fair borrow gate, once the pool has started with fair borrowing on */
    @Nullable
    FairBorrowGate gate() {
        return gate;
    }

    /**
     * Stops the fault handling and removes the gauges: before HikariCP closes, so that nothing reacts to its
     * closing connections.
     */
    void stopping() {
        synchronized (lock) {
            OutageRecovery outages = recovery;
            if (outages != null) {
                outages.close();
                recovery = null;
            }
            if (failover != null) {
                failover.detach();
                failover = null;
            }
            if (tomcatGauges != null) {
                tomcatGauges.remove();
                tomcatGauges = null;
            }
        }
    }

    /** Removes the gate's metrics, once HikariCP has closed. */
    void stopped() {
        FairBorrowGate runningGate = gate;
        if (runningGate != null) {
            runningGate.unregister();
        }
    }
}
