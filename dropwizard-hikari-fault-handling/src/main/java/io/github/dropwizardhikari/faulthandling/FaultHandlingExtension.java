package io.github.dropwizardhikari.faulthandling;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.PoolHooks;
import jakarta.validation.constraints.NotNull;

import java.util.ArrayList;
import java.util.List;

/**
 * How the pools of one block meet database faults: dead connections are evicted by the error that showed them
 * dead, and during an outage the pool keeps trying at a fixed interval, borrowers fail fast, naming the cause, once
 * waiting cannot help, and the connections opened before it are evicted when the database answers again (it may be
 * another server by then). On PostgreSQL and MariaDB a borrowed connection whose server session is gone, or whose server has not
 * answered for {@code silenceLimit}, is aborted ({@link DeadSessionCheck}). With {@code failoverEviction: true} it
 * also evicts the whole pool on the other signs of a failover.
 *
 * <pre>{@code
 * hikari:
 *   url: jdbc:postgresql://db/app
 *   extensions:
 *     - type: fault-handling
 *       recoveryProbeInterval: 250ms
 *       failoverEviction: true
 * }</pre>
 *
 * <table>
 * <caption>Settings</caption>
 * <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 * <tr><td>{@code evictOn}</td><td>{@code []}</td><td>Errors that evict the connection that threw them, besides the
 * built-in connection-loss codes of the pool's driver, for PostgreSQL, MariaDB/MySQL and H2; an all-digit entry
 * matches the SQLState or the vendor code. Rule: each a five-character SQLState ({@code 08S01}) or a whole-number
 * vendor code ({@code 2013}). Out of range: error.</td></tr>
 * <tr><td>{@code failoverEviction}</td><td>{@code false}</td><td>Evicts every connection of the pool at once on
 * evidence that the server behind it changed, as in a failover (Patroni, Aurora, a DNS switch): a write refused as
 * read-only on a pool that is not {@code readOnlyByDefault}, or connection loss on two connections within a second;
 * on PostgreSQL, a borrow whose connection reports the server read-only ({@code in_hot_standby}, {@code
 * default_transaction_read_only}) under a block that expects a primary, which fails with SQLState 25006. Read-only
 * evidence retires every pool of the block, and every pool of the application with {@code fault-handling} named
 * whose URL reaches the same server (same host and port, or the same address resolved at start), whatever its
 * {@code failoverEviction}; a block that asks for a standby is left alone. One WARN per event; one session's death
 * evicts only its own connection; connections in use are evicted when they are returned.</td></tr>
 * <tr><td>{@code recoveryProbeInterval}</td><td>{@code 250 milliseconds}</td><td>While the database does not accept
 * connections, the pool tries once per interval and fills up as soon as it answers; 0 leaves HikariCP's back-off
 * (up to 5 s) alone. Rule: 0 (off) or at least 10 ms. Out of range: error.</td></tr>
 * <tr><td>{@code sessionCheckInterval}</td><td>{@code 1 second}</td><td>How often one connection of the check's own
 * asks the server which of the borrowed connections' sessions it still holds (PostgreSQL's {@code pg_stat_activity},
 * MariaDB's {@code information_schema.PROCESSLIST});
 * one missing twice, the second time to a connection opened after the first, is aborted, so its borrower fails at
 * once; a query on a session the server holds runs to its end. The check's connection counts within {@code maxSize}:
 * the pool lends at most {@code maxSize} - 1 while it runs, and with {@code maxSize: 1} it does not run (a WARN says
 * so). 0 turns the check off. Rule: 0 (off) or at least 100 ms. Out of range: error.</td></tr>
 * <tr><td>{@code silenceLimit}</td><td>{@code 5 seconds}</td><td>How long the server may leave the session check
 * unanswered before every borrowed connection is aborted and the idle ones retired, as after a failover to a new
 * address. Rule: at least 1 second. Out of range: error.</td></tr>
 * </table>
 */
@JsonTypeName("fault-handling")
@FaultHandlingRules
public class FaultHandlingExtension implements PoolExtension {
    // 4 attempts a second per pool while the database is down; the pool serves within 250 ms of its return
    static final long DEFAULT_RECOVERY_PROBE_INTERVAL_MILLIS = 250;
    // connection loss on a second connection within this time of the first evicts the pool; errors within this time
    // after an eviction belong to the same event
    static final long FAILOVER_WINDOW_MILLIS = 1_000;

    @NotNull
    private List<String> evictOn = new ArrayList<>();

    // the block's pools that expect a primary: what one learns of the server's role reaches the others (and the
    // application's pools on the same server, through the registry they share)
    @JsonIgnore
    private final PrimaryServers primaryServers = new PrimaryServers();

    @NotNull
    private Duration recoveryProbeInterval = Duration.milliseconds(DEFAULT_RECOVERY_PROBE_INTERVAL_MILLIS);

    @NotNull
    private Duration sessionCheckInterval = Duration.seconds(1);

    @NotNull
    private Duration silenceLimit = Duration.seconds(5);

    @JsonProperty
    public List<String> getEvictOn() {
        return evictOn;
    }

    @JsonProperty
    public void setEvictOn(List<String> evictOn) {
        this.evictOn = evictOn;
    }

    private boolean failoverEviction;

    @JsonProperty
    public boolean isFailoverEviction() {
        return failoverEviction;
    }

    @JsonProperty
    public void setFailoverEviction(boolean failoverEviction) {
        this.failoverEviction = failoverEviction;
    }

    @JsonProperty
    public Duration getRecoveryProbeInterval() {
        return recoveryProbeInterval;
    }

    @JsonProperty
    public void setRecoveryProbeInterval(Duration recoveryProbeInterval) {
        this.recoveryProbeInterval = recoveryProbeInterval;
    }

    @JsonProperty
    public Duration getSessionCheckInterval() {
        return sessionCheckInterval;
    }

    @JsonProperty
    public void setSessionCheckInterval(Duration sessionCheckInterval) {
        this.sessionCheckInterval = sessionCheckInterval;
    }

    @JsonProperty
    public Duration getSilenceLimit() {
        return silenceLimit;
    }

    @JsonProperty
    public void setSilenceLimit(Duration silenceLimit) {
        this.silenceLimit = silenceLimit;
    }

    @Override
    public PoolHooks attach(HikariConfig config, MetricRegistry metrics) {
        FailoverEviction failover = failoverEviction
            ? new FailoverEviction(config.getPoolName(), config.isReadOnly(), FAILOVER_WINDOW_MILLIS) : null;
        // before the hooks replace the data source: the check connects as the block says, not through the retries
        DeadSessionCheck sessions = DeadSessionChecks.of(config, sessionCheckInterval.toMilliseconds(),
            silenceLimit.toMilliseconds());
        // every pool expecting a primary is retired on another's evidence; with failoverEviction it also looks for it
        ServerRole role = ServerRole.of(config, primaryServers, PrimaryServers.of(metrics), failoverEviction);
        return new FaultHandlingHooks(config, evictOn, recoveryProbeInterval.toMilliseconds(), failover, sessions,
            role);
    }
}
