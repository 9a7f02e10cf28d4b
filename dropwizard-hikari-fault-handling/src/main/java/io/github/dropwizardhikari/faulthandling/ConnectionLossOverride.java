package io.github.dropwizardhikari.faulthandling;

import com.zaxxer.hikari.SQLExceptionOverride;
import org.jspecify.annotations.Nullable;

import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Evicts the connection that threw a connection-loss error of its driver ({@link ConnectionErrors}) or one on the
 * user's {@code evictOn} list, so a dead session is never handed out again; with {@code failoverEviction}, tells
 * {@link FailoverEviction} of each connection lost and of each write refused as read-only. HikariCP 7.1 asks the
 * override before its own rules; the user's {@code exceptionOverrideClassName} is asked first, and its
 * {@code DO_NOT_EVICT} or {@code MUST_EVICT} wins. An {@code evictOn} entry of digits only matches the SQLState or the
 * vendor code, since some drivers (H2) use the error code as the SQLState.
 */
final class ConnectionLossOverride implements SQLExceptionOverride {
    @Nullable
    private final SQLExceptionOverride userOverride;
    private final ConnectionErrors errors;
    private final Set<String> evictOn;
    @Nullable
    private final FailoverEviction failover;

    /**
     * @param userOverride the user's {@code exceptionOverrideClassName}, or {@code null}
     * @param failover     what evicts the whole pool on a failover, or {@code null} when it is off
     */
    ConnectionLossOverride(@Nullable SQLExceptionOverride userOverride, ConnectionErrors errors, List<String> evictOn,
                           @Nullable FailoverEviction failover) {
        this.userOverride = userOverride;
        this.errors = requireNonNull(errors, "errors");
        this.evictOn = evictOn.stream().map(entry -> entry.trim().toUpperCase(Locale.ROOT))
            .collect(Collectors.toUnmodifiableSet());
        this.failover = failover;
    }

    @java.lang.Override
    public Override adjudicate(SQLException e) {
        Override users = userOverride == null ? Override.CONTINUE_EVICT : userOverride.adjudicate(e);
        if (users == Override.DO_NOT_EVICT) {
            return users;
        }
        if (errors.isConnectionLoss(e)) {
            if (failover != null) {
                failover.connectionLost(e);
            }
            return Override.MUST_EVICT;
        }
        if (failover != null && errors.isReadOnlyRejection(e) && failover.readOnlyRejected(e)) {
            return Override.MUST_EVICT;
        }
        String state = e.getSQLState();
        boolean listed = (state != null && evictOn.contains(state.toUpperCase(Locale.ROOT)))
            || evictOn.contains(Integer.toString(e.getErrorCode()));
        return listed ? Override.MUST_EVICT : users;
    }
}
