package io.github.dropwizardhikari;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.BeanDeserializerFactory;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.deser.ResolvableDeserializer;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.util.Map;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Binds a factory's block with Jackson's bean deserializer and hands it its {@link Origin}, so messages name
 * {@code hikari.maxWaitForConnection} under the name the block used. Unknown keys still reach Jackson's failure,
 * which Dropwizard turns into its "Did you mean" message.
 */
final class OriginRecordingDeserializer extends JsonDeserializer<Object> implements ContextualDeserializer {
    private final @Nullable JsonDeserializer<Object> bean;

    OriginRecordingDeserializer() {
        this(null);
    }

    private OriginRecordingDeserializer(@Nullable JsonDeserializer<Object> bean) {
        this.bean = bean;
    }

    @Override
    public JsonDeserializer<?> createContextual(DeserializationContext ctxt, @Nullable BeanProperty property)
        throws JsonMappingException {
        // the type being bound: for a block inside a map or list the property is the container, not the block
        JavaType type = ctxt.getContextualType();
        // the annotation that selected this class is read by Jackson's deserializer cache, not by the bean
        // deserializer factory, so this does not recurse. Jackson's own factory, without the modules' modifiers:
        // Dropwizard's Blackbird module would generate a lambda class per setting for a block read once.
        JsonDeserializer<Object> bean = BeanDeserializerFactory.instance.createBeanDeserializer(ctxt, type,
            ctxt.getConfig().introspect(type));
        if (bean instanceof ResolvableDeserializer resolvable) {
            resolvable.resolve(ctxt);
        }
        @SuppressWarnings("unchecked")
        JsonDeserializer<Object> inContext = (JsonDeserializer<Object>) ctxt.handlePrimaryContextualization(bean,
            property, type);
        return new OriginRecordingDeserializer(inContext);
    }

    @Override
    public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        String path = path(p);
        JsonNode block = ctxt.readTree(p);
        try (JsonParser blockParser = block.traverse(p.getCodec())) {
            blockParser.nextToken();
            // Jackson contextualizes a deserializer before it deserializes with it
            Object parsed = requireNonNull(bean).deserialize(blockParser, ctxt);
            // only the factory's @JsonDeserialize names this class, so the bean is a factory
            ((HikariDataSourceFactory) parsed).parsedFrom(new Origin(path, block.propertyStream().map(Map.Entry::getKey)
                .collect(Collectors.toUnmodifiableSet())));
            return parsed;
        }
    }

    /**
     * The dotted path of the value the parser is at. Jackson's tree parser (Dropwizard's) enters the block's own
     * context one token later than a streaming parser, so a nameless object context is the block's and is skipped.
     */
    static String path(JsonParser p) {
        JsonStreamContext context = p.getParsingContext();
        if (context != null && (p.currentToken() == JsonToken.FIELD_NAME
            || (context.inObject() && context.getCurrentName() == null))) {
            context = context.getParent();
        }
        StringBuilder path = new StringBuilder();
        for (; context != null && !context.inRoot(); context = context.getParent()) {
            if (context.inArray()) {
                path.insert(0, "[" + context.getCurrentIndex() + "]");
            } else if (context.getCurrentName() != null) {
                path.insert(0, "." + context.getCurrentName());
            }
        }
        return path.length() > 0 && path.charAt(0) == '.' ? path.substring(1) : path.toString();
    }
}
