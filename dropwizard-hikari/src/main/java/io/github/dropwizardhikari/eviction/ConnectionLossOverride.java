package io.github.dropwizardhikari.eviction;

import com.zaxxer.hikari.SQLExceptionOverride;
import org.jspecify.annotations.Nullable;

import java.sql.SQLException;

import static java.util.Objects.requireNonNull;

/**
 * The pool's {@link SQLExceptionOverride}: evicts a connection on every connection-loss error of the drivers the
 * project tests ({@link ConnectionErrors}) and on the user's {@code evictOn} list, so a connection whose session
 * died is never handed out again.
 *
 * <p>HikariCP asks the override about every {@link SQLException} a pooled connection throws (and the chain of
 * next exceptions), before its own rules; {@code DO_NOT_EVICT} keeps the connection, {@code MUST_EVICT} retires
 * it. The user's own {@code exceptionOverrideClassName} is asked first and wins: its {@code DO_NOT_EVICT} keeps
 * the connection whatever this class would say, its {@code MUST_EVICT} evicts. The errors recognised here are
 * also passed to a {@link ConnectionErrorListener} (the failover eviction).</p>
 */
public final class ConnectionLossOverride implements SQLExceptionOverride {
    @Nullable
    private final SQLExceptionOverride userOverride;
    private final EvictOn evictOn;
    private final ConnectionErrorListener listener;

    public ConnectionLossOverride(@Nullable SQLExceptionOverride userOverride, EvictOn evictOn,
                                  ConnectionErrorListener listener) {
        this.userOverride = userOverride;
        this.evictOn = requireNonNull(evictOn, "evictOn");
        this.listener = requireNonNull(listener, "listener");
    }

    @java.lang.Override
    public Override adjudicate(SQLException e) {
        Override users = userOverride == null ? Override.CONTINUE_EVICT : userOverride.adjudicate(e);
        if (users == Override.DO_NOT_EVICT) {
            return users;
        }
        if (ConnectionErrors.isConnectionLoss(e) || evictOn.matches(e)) {
            listener.connectionLost(e);
            return Override.MUST_EVICT;
        }
        if (ConnectionErrors.isReadOnlyRejection(e) && listener.readOnlyRejected(e)) {
            return Override.MUST_EVICT;
        }
        return users;
    }
}
