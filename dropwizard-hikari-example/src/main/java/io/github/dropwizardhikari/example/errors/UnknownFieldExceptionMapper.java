package io.github.dropwizardhikari.example.errors;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.dropwizard.jersey.errors.ErrorMessage;
import io.dropwizard.jersey.jackson.JsonProcessingExceptionMapper;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.util.Collection;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A body with a field the API does not take (an {@code id} in a create, a misspelt name) answers 422 naming it and
 * the fields it takes, rather than being stored without it; any other JSON error is answered as Dropwizard answers
 * it. The application's object mapper fails on unknown properties for this to see them.
 */
public class UnknownFieldExceptionMapper extends JsonProcessingExceptionMapper {
    @Override
    public Response toResponse(JsonProcessingException exception) {
        if (!(exception instanceof UnrecognizedPropertyException unknown)) {
            return super.toResponse(exception);
        }
        String message = unknown.getPropertyName() + " is not a field of this body; it takes " + fields(unknown);
        return Response.status(Errors.UNPROCESSABLE_ENTITY)
            .type(MediaType.APPLICATION_JSON_TYPE)
            .entity(new ErrorMessage(Errors.UNPROCESSABLE_ENTITY, message))
            .build();
    }

    private static String fields(UnrecognizedPropertyException unknown) {
        Collection<Object> known = unknown.getKnownPropertyIds();
        return known == null ? "the fields it documents" : known.stream().map(Objects::toString).sorted()
            .collect(Collectors.joining(", "));
    }
}
