package io.github.dropwizardhikari.example.errors;

import io.dropwizard.jersey.errors.ErrorMessage;
import io.dropwizard.jersey.errors.LoggingExceptionMapper;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jdbi.v3.core.ConnectionException;
import org.jdbi.v3.core.JdbiException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;

/**
 * Answers 503 with a JSON body when the database cannot be reached or the pool has no connection to give
 * within its timeout; any other database failure stays a logged 500, as Dropwizard answers it.
 */
public class DatabaseUnavailableExceptionMapper extends LoggingExceptionMapper<JdbiException> {
    private static final Logger LOGGER = LoggerFactory.getLogger(DatabaseUnavailableExceptionMapper.class);
    // SQLState class 08 is "connection exception"; 57P01-57P03 are PostgreSQL's shutdown and "cannot connect now"
    private static final String CONNECTION_STATE_CLASS = "08";
    private static final String POSTGRES_OPERATOR_INTERVENTION = "57P0";

    @Override
    public Response toResponse(JdbiException exception) {
        if (!isConnectionFailure(exception)) {
            return super.toResponse(exception);
        }
        String message = "database unavailable: " + rootMessage(exception);
        LOGGER.warn("Answering 503: {}", message);
        return Response.status(Response.Status.SERVICE_UNAVAILABLE)
            .type(MediaType.APPLICATION_JSON_TYPE)
            .header("Retry-After", 1)
            .entity(new ErrorMessage(Response.Status.SERVICE_UNAVAILABLE.getStatusCode(), message))
            .build();
    }

    /** @return whether the exception, or a cause of it, says the database cannot be reached */
    public static boolean isConnectionFailure(Throwable exception) {
        if (exception instanceof ConnectionException) {
            return true;
        }
        for (Throwable cause = exception; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLTransientConnectionException || cause instanceof SQLNonTransientConnectionException) {
                return true;
            }
            if (cause instanceof SQLException && isConnectionState(((SQLException) cause).getSQLState())) {
                return true;
            }
        }
        return false;
    }

    private static boolean isConnectionState(@Nullable String sqlState) {
        return sqlState != null
            && (sqlState.startsWith(CONNECTION_STATE_CLASS) || sqlState.startsWith(POSTGRES_OPERATOR_INTERVENTION));
    }

    /** @return the message of the exception's deepest cause */
    public static String rootMessage(Throwable exception) {
        Throwable root = exception;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }
}
