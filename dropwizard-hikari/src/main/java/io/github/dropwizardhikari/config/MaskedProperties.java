package io.github.dropwizardhikari.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;

import java.io.IOException;
import java.util.Map;

/** Writes driver properties to JSON the way {@code toString()} prints them: secret-looking values masked. */
public final class MaskedProperties extends StdSerializer<Map<String, String>> {
    @SuppressWarnings("unchecked")
    public MaskedProperties() {
        super((Class<Map<String, String>>) (Class<?>) Map.class);
    }

    @Override
    public void serialize(Map<String, String> properties, JsonGenerator generator, SerializerProvider provider)
        throws IOException {
        generator.writeStartObject();
        for (Map.Entry<String, String> entry : Redaction.properties(properties).entrySet()) {
            generator.writeStringField(entry.getKey(), entry.getValue());
        }
        generator.writeEndObject();
    }
}
