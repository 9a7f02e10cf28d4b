package io.github.dropwizardhikari.example.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;

import java.io.IOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;

/**
 * A date of the API as the API answers it: ISO-8601 text with an offset ({@code "2024-05-01T10:00:00Z"}), from 1970
 * to the end of year 9999, the years that text writes without a sign. A number, or text of digits alone, is refused
 * rather than guessed at (seconds or milliseconds since 1970?); Jackson's own {@code Instant} reader takes both.
 */
public class IsoInstantDeserializer extends StdScalarDeserializer<Instant> {
    static final Instant EARLIEST = Instant.parse("1970-01-01T00:00:00Z");
    static final Instant LATEST = Instant.parse("9999-12-31T23:59:59Z");
    /** What a date must be, as the error answering one that is not says it. */
    public static final String EXPECTED = "ISO-8601 text with an offset, such as \"2024-05-01T10:00:00Z\", from "
        + EARLIEST + " to " + LATEST;

    public IsoInstantDeserializer() {
        super(Instant.class);
    }

    @Override
    public Instant deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        if (!parser.hasToken(JsonToken.VALUE_STRING)) {
            return (Instant) context.handleUnexpectedToken(Instant.class, parser);
        }
        String text = parser.getText();
        try {
            Instant instant = DateTimeFormatter.ISO_OFFSET_DATE_TIME.parse(text, Instant::from);
            if (!instant.isBefore(EARLIEST) && !instant.isAfter(LATEST)) {
                return instant;
            }
        } catch (DateTimeException notADate) {
            // answered below, as a date out of range is
        }
        return (Instant) context.handleWeirdStringValue(Instant.class, text, "expected " + EXPECTED);
    }
}
