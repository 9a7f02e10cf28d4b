package io.github.dropwizardhikari.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;

import java.io.IOException;

/** Writes a JDBC URL to JSON the way {@code toString()} prints it: with its credentials masked. */
public final class MaskedUrl extends StdSerializer<String> {
    public MaskedUrl() {
        super(String.class);
    }

    @Override
    public void serialize(String url, JsonGenerator generator, SerializerProvider provider) throws IOException {
        generator.writeString(Redaction.url(url));
    }
}
