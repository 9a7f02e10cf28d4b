package io.github.dropwizardhikari.fairborrowing;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.PoolHooks;

import java.util.List;
import java.util.Optional;

/**
 * Borrowers wait for a connection in arrival order, as with Dropwizard's Tomcat pool ({@code useFairQueue: true}).
 * HikariCP hands a returned connection to whichever waiting thread gets there first, so when borrowers outnumber
 * connections by far (virtual threads, say) some wait much longer than others.
 *
 * <pre>{@code
 * hikari:
 *   extensions:
 *     - type: fair-borrowing
 * }</pre>
 *
 * <p>It has no settings: a fair semaphore of {@code maxSize} places sits before HikariCP's {@code getConnection()},
 * a borrower waits {@code maxWaitForConnection} in all, queue and HikariCP together, on its own thread, and a
 * returned connection gives its place back, whoever closes it (see {@link BorrowGate}).</p>
 */
@JsonTypeName("fair-borrowing")
public final class FairBorrowing implements PoolExtension {
    @Override
    public PoolHooks attach(HikariConfig config, MetricRegistry metrics) {
        return attach(config, new BorrowGate(config.getPoolName(), config.getMaximumPoolSize(),
            config.getConnectionTimeout(), metrics));
    }

    /**
     * Puts {@code gate} in front of the pool, and its tracker between HikariCP and the pool's own tracker, for the
     * figures alone: the time queued at the gate in HikariCP's record of the borrow, those queued among the pending.
     */
    static BorrowGate attach(HikariConfig config, BorrowGate gate) {
        MetricsTrackerFactory recording = config.getMetricsTrackerFactory();
        config.setMetricsTrackerFactory((poolName, stats) -> gate.tracker(recording == null
            ? BorrowGate.RECORDS_NOTHING : recording.create(poolName, new QueueCountingStats(stats, gate))));
        return gate;
    }

    /** Listed before {@code fault-handling}, the gate queues the borrowers that the fault handling fails at once. */
    @Override
    public Optional<String> placeWarning(List<String> listed) {
        int faults = listed.indexOf("fault-handling");
        return faults > listed.indexOf("fair-borrowing") ? Optional.of("fair-borrowing is listed before "
            + "fault-handling, so during an outage a borrower first queues at the gate, up to maxWaitForConnection, "
            + "before fault-handling fails it at once; list fault-handling first") : Optional.empty();
    }

    @Override
    public String toString() {
        return "fair-borrowing";
    }
}
