package io.github.dropwizardhikari.example.errors;

import io.dropwizard.jersey.errors.ErrorMessage;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** Client errors in Dropwizard's JSON error format, {@code {"code": 404, "message": "..."}}. */
public final class Errors {
    public static final int UNPROCESSABLE_ENTITY = 422;

    private Errors() {
    }

    public static WebApplicationException of(int status, String message) {
        return new WebApplicationException(message, Response.status(status)
            .type(MediaType.APPLICATION_JSON_TYPE)
            .entity(new ErrorMessage(status, message))
            .build());
    }

    public static WebApplicationException questionNotFound(long id) {
        return of(Response.Status.NOT_FOUND.getStatusCode(), "question " + id + " not found");
    }
}
