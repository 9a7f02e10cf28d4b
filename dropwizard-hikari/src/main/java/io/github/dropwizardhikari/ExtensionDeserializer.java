package io.github.dropwizardhikari;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;

import java.io.IOException;

/**
 * Reads one entry of {@code extensions:} as the {@link PoolExtension} its {@code type} names, and says which module to
 * add when no module on the class path provides that type.
 */
final class ExtensionDeserializer extends StdDeserializer<PoolExtension> {
    private static final String MODULE_PREFIX = "io.github.dropwizard-hikari:dropwizard-hikari-";

    ExtensionDeserializer() {
        super(PoolExtension.class);
    }

    @Override
    public PoolExtension deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        JsonNode entry = context.readTree(parser);
        try {
            return context.readTreeAsValue(entry, PoolExtension.class);
        } catch (InvalidTypeIdException missing) {
            String type = missing.getTypeId();
            throw InvalidTypeIdException.from(parser, type == null
                ? "an extension needs a 'type'; " + missing.getOriginalMessage()
                : "no module on the class path provides the extension '" + type + "': add the dependency "
                    + MODULE_PREFIX + type + " (" + missing.getOriginalMessage() + ")",
                missing.getBaseType(), type);
        }
    }
}
