package io.github.dropwizardhikari.faults;

import com.zaxxer.hikari.SQLExceptionOverride;
import org.jspecify.annotations.Nullable;

import java.sql.SQLException;

import static java.util.Objects.requireNonNull;

/**
 * The pool's {@link SQLExceptionOverride}: evicts a connection on every connection-loss error of the pool's driver
 * ({@link ConnectionErrors}) and on the user's {@code evictOn} list, so a connection whose session died is never
 * handed out again. Only the connection that threw the error is evicted here.
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
    private final ConnectionErrors errors;
    private final EvictOn evictOn;
    private final ConnectionErrorListener listener;

    /**
     * @param userOverride the user's own {@code exceptionOverrideClassName}, asked first, or {@code null}
     * @param errors       the connection-loss and read-only errors of the pool's driver
     * @param evictOn      the user's {@code evictOn} list
     * @param listener     told about each recognised error
     */
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
