package io.github.dropwizardhikari.example.errors;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.dropwizard.jersey.errors.ErrorMessage;
import io.dropwizard.jersey.jackson.JsonProcessingExceptionMapper;
import io.github.dropwizardhikari.example.api.IsoInstantDeserializer;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.jspecify.annotations.Nullable;

import java.time.Instant;
import java.util.Collection;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * A body that is JSON but that the API cannot honour as sent answers 422 naming the field: a field the API does not
 * take (an {@code id} in a create, a misspelt name; the answer lists those it takes), a field given twice, a value of
 * the wrong type ({@code "5"} or {@code 1.5} for a whole number, a number for a date). Anything else, such as JSON
 * cut short, is answered as Dropwizard answers it (400). The application's object mapper fails on unknown
 * properties, duplicate fields and coercions for this to see them.
 */
public class JsonBodyExceptionMapper extends JsonProcessingExceptionMapper {
    // Jackson reports a duplicate only as a parse error with this message, the field being the parser's current name
    private static final String DUPLICATE_FIELD = "Duplicate field ";

    @Override
    public Response toResponse(JsonProcessingException exception) {
        String message = describe(exception);
        if (message == null) {
            return super.toResponse(exception);
        }
        return Response.status(Errors.UNPROCESSABLE_ENTITY)
            .type(MediaType.APPLICATION_JSON_TYPE)
            .entity(new ErrorMessage(Errors.UNPROCESSABLE_ENTITY, message))
            .build();
    }

    private static @Nullable String describe(JsonProcessingException exception) {
        if (exception instanceof UnrecognizedPropertyException unknown) {
            return unknown.getPropertyName() + " is not a field of this body; it takes " + fields(unknown);
        }
        if (exception instanceof StreamReadException && exception.getProcessor() instanceof JsonParser parser
            && Objects.toString(exception.getOriginalMessage(), "").startsWith(DUPLICATE_FIELD)) {
            String name = parser.getParsingContext().getCurrentName();
            return (name == null ? "a field" : name) + " is given twice; each field may appear once";
        }
        if (exception instanceof MismatchedInputException || exception.getCause() instanceof InputCoercionException) {
            JsonMappingException mapping = (JsonMappingException) exception;
            String field = field(mapping);
            if (field == null) {
                return null;
            }
            String expected = expected(targetType(mapping));
            return expected == null ? field + " has a value of the wrong type" : field + " must be " + expected;
        }
        return null;
    }

    /** @return the path to the value that could not be read ({@code score}), or null for the body as a whole */
    private static @Nullable String field(JsonMappingException exception) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference reference : exception.getPath()) {
            if (reference.getFieldName() != null) {
                path.append(path.length() == 0 ? "" : ".").append(reference.getFieldName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.length() == 0 ? null : path.toString();
    }

    private static @Nullable Class<?> targetType(JsonMappingException exception) {
        if (exception instanceof MismatchedInputException mismatch) {
            return mismatch.getTargetType();
        }
        // a number too large for its field is the parser's error, wrapped with the path
        return exception.getCause() instanceof InputCoercionException coercion ? coercion.getTargetType() : null;
    }

    private static @Nullable String expected(@Nullable Class<?> type) {
        if (type == Instant.class) {
            return IsoInstantDeserializer.EXPECTED;
        }
        if (type == int.class || type == Integer.class) {
            return wholeNumber(Integer.MIN_VALUE, Integer.MAX_VALUE);
        }
        if (type == long.class || type == Long.class) {
            return wholeNumber(Long.MIN_VALUE, Long.MAX_VALUE);
        }
        return null;
    }

    private static String wholeNumber(long min, long max) {
        return "a whole number from " + min + " to " + max + ", as a JSON number without quotes or a fraction";
    }

    private static String fields(UnrecognizedPropertyException unknown) {
        Collection<Object> known = unknown.getKnownPropertyIds();
        return known == null ? "the fields it documents" : known.stream().map(Objects::toString).sorted()
            .collect(Collectors.joining(", "));
    }
}
