package io.github.dropwizardhikari.failovereviction;

import com.zaxxer.hikari.SQLExceptionOverride;
import org.jspecify.annotations.Nullable;

import java.sql.SQLException;

/**
 * Hears the errors that show a failover, after the override the pool had (the user's, or the fault handling's),
 * whose {@code DO_NOT_EVICT} wins: connection loss is told to {@link FailoverEviction} and evicts its connection;
 * a read-only refusal evicts its connection when it evicts the pool.
 */
final class FailoverOverride implements SQLExceptionOverride {
    @Nullable
    private final SQLExceptionOverride previous;
    private final ConnectionErrors errors;
    private final FailoverEviction eviction;

    FailoverOverride(@Nullable SQLExceptionOverride previous, ConnectionErrors errors, FailoverEviction eviction) {
        this.previous = previous;
        this.errors = errors;
        this.eviction = eviction;
    }

    @java.lang.Override
    public Override adjudicate(SQLException e) {
        Override before = previous == null ? Override.CONTINUE_EVICT : previous.adjudicate(e);
        if (before == Override.DO_NOT_EVICT) {
            return before;
        }
        if (errors.isConnectionLoss(e)) {
            eviction.connectionLost(e);
            return Override.MUST_EVICT;
        }
        if (errors.isReadOnlyRejection(e) && eviction.readOnlyRejected(e)) {
            return Override.MUST_EVICT;
        }
        return before;
    }
}
