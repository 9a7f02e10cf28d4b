package io.github.dropwizardhikari.pool;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * How the pool meets database faults.
 *
 * @param recoveryProbeIntervalMillis how often the pool tries to connect while the database does not accept
 *                                    connections, and so the longest it stays empty after the database returns;
 *                                    0 leaves HikariCP's own back-off alone
 * @param evictOn                     SQLStates and vendor codes that evict a connection, besides the built-in
 *                                    connection-loss codes
 * @param failoverEviction            whether evidence of a changed server (a read-only refusal, connection
 *                                    loss on two connections within {@link #FAILOVER_WINDOW_MILLIS}, the end
 *                                    of an outage) evicts every connection of the pool
 */
public record FaultHandling(long recoveryProbeIntervalMillis, List<String> evictOn, boolean failoverEviction) {
    // 4 attempts a second per pool while the database is down; the pool serves within 250 ms of its return
    public static final long DEFAULT_RECOVERY_PROBE_INTERVAL_MILLIS = 250;
    /**
     * Connection loss on a second connection within this time of the first evicts the pool; errors within this
     * time after a failover eviction belong to the same event.
     */
    public static final long FAILOVER_WINDOW_MILLIS = 1_000;

    public FaultHandling {
        evictOn = List.copyOf(requireNonNull(evictOn, "evictOn"));
    }

    public static FaultHandling defaults() {
        return new FaultHandling(DEFAULT_RECOVERY_PROBE_INTERVAL_MILLIS, List.of(), true);
    }
}
