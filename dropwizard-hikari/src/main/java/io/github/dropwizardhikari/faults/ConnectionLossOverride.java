package io.github.dropwizardhikari.faults;

import com.zaxxer.hikari.SQLExceptionOverride;
import org.jspecify.annotations.Nullable;

import java.sql.SQLException;

import static java.util.Objects.requireNonNull;

/**
 * Evicts the connection that threw a connection-loss error of its driver ({@link ConnectionErrors}) or one on the
 * user's {@code evictOn} list, so a dead session is never handed out again, and tells the
 * {@link ConnectionErrorListener}. HikariCP 7.1 asks the override before its own rules; the user's
 * {@code exceptionOverrideClassName} is asked first, and its {@code DO_NOT_EVICT} or {@code MUST_EVICT} wins.
 */
public final class ConnectionLossOverride implements SQLExceptionOverride {
    @Nullable
    private final SQLExceptionOverride userOverride;
    private final ConnectionErrors errors;
    private final EvictOn evictOn;
    private final ConnectionErrorListener listener;

    /** @param userOverride the user's {@code exceptionOverrideClassName}, or {@code null} */
    public ConnectionLossOverride(@Nullable SQLExceptionOverride userOverride, ConnectionErrors errors,
                                  EvictOn evictOn, ConnectionErrorListener listener) {
        this.userOverride = userOverride;
        this.errors = requireNonNull(errors, "errors");
        this.evictOn = requireNonNull(evictOn, "evictOn");
        this.listener = requireNonNull(listener, "listener");
    }

    @java.lang.Override
    public Override adjudicate(SQLException e) {
        Override users = userOverride == null ? Override.CONTINUE_EVICT : userOverride.adjudicate(e);
        if (users == Override.DO_NOT_EVICT) {
            return users;
        }
        if (errors.isConnectionLoss(e) || evictOn.matches(e)) {
            listener.connectionLost(e);
            return Override.MUST_EVICT;
        }
        if (errors.isReadOnlyRejection(e) && listener.readOnlyRejected(e)) {
            return Override.MUST_EVICT;
        }
        return users;
    }
}
