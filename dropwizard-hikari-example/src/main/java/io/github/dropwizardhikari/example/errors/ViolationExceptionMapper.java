package io.github.dropwizardhikari.example.errors;

import io.dropwizard.jersey.errors.ErrorMessage;
import io.dropwizard.jersey.validation.ConstraintMessage;
import io.dropwizard.jersey.validation.JerseyViolationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;

import java.util.stream.Collectors;

/**
 * A request that fails validation, with Dropwizard's status (422 for a body, 400 for a parameter) and its messages,
 * in the API's one error format, {@code {"code": 422, "message": "creationDate must not be null"}}, instead of
 * Dropwizard's {@code {"errors": [...]}}; several violations are joined with {@code "; "}. It replaces Dropwizard's
 * own mapper for the same exception, as Dropwizard documents.
 */
public class ViolationExceptionMapper implements ExceptionMapper<JerseyViolationException> {
    @Override
    public Response toResponse(JerseyViolationException exception) {
        String message = exception.getConstraintViolations().stream()
            .map(violation -> ConstraintMessage.getMessage(violation, exception.getInvocable()))
            .sorted()
            .collect(Collectors.joining("; "));
        int status = ConstraintMessage.determineStatus(exception.getConstraintViolations(),
            exception.getInvocable());
        return Response.status(status)
            .type(MediaType.APPLICATION_JSON_TYPE)
            .entity(new ErrorMessage(status, message))
            .build();
    }
}
