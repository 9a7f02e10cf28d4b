package io.github.dropwizardhikari;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import com.fasterxml.jackson.databind.jsontype.TypeDeserializer;

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

    // the list's elements are polymorphic, so Jackson hands each to this method with the type resolver; the
    // deserialize below resolves the type itself, to catch a type no module provides
    @Override
    public Object deserializeWithType(JsonParser parser, DeserializationContext context,
                                      TypeDeserializer typeDeserializer) throws IOException {
        return deserialize(parser, context);
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
