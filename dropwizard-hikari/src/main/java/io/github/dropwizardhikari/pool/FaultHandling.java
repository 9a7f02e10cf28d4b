package io.github.dropwizardhikari.pool;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * How the pool meets database faults.
 *
 * @param recoveryProbeIntervalMillis how often a stalled pool probes the database during an outage, and so the
 *                                    longest it stays empty after the database returns; 0 leaves HikariCP's own
 *                                    back-off alone
 * @param evictOn                     SQLStates and vendor codes that evict a connection, besides the built-in
 *                                    connection-loss codes
 * @param failoverEviction            whether a connection-loss or read-only error evicts every connection of
 *                                    the pool
 */
public record FaultHandling(long recoveryProbeIntervalMillis, List<String> evictOn, boolean failoverEviction) {
    // one interval plus two connection set-ups stays under 100 ms on a local network; 12.5 probes a second while down
    public static final long DEFAULT_RECOVERY_PROBE_INTERVAL_MILLIS = 80;
    /** Errors within this time after a failover eviction belong to the same event. */
    public static final long FAILOVER_QUIET_PERIOD_MILLIS = 1_000;

    public FaultHandling {
        evictOn = List.copyOf(requireNonNull(evictOn, "evictOn"));
    }

    public static FaultHandling defaults() {
        return new FaultHandling(DEFAULT_RECOVERY_PROBE_INTERVAL_MILLIS, List.of(), true);
    }
}
