package io.github.dropwizardhikari.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.deser.ResolvableDeserializer;
import com.fasterxml.jackson.databind.jsontype.TypeDeserializer;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Binds a configuration block with Jackson's bean deserializer and hands it its {@link Origin}, so messages name
 * {@code hikari.maxWaitForConnection} and can tell which name a setting was given under. Unknown keys still reach
 * Jackson's failure, which Dropwizard turns into its "Did you mean" message.
 */
public final class OriginRecordingDeserializer extends JsonDeserializer<Object>
    implements ContextualDeserializer, ResolvableDeserializer {
    @Nullable
    private final JsonDeserializer<Object> beanDeserializer;

    public OriginRecordingDeserializer() {
        this(null);
    }

    private OriginRecordingDeserializer(@Nullable JsonDeserializer<Object> beanDeserializer) {
        this.beanDeserializer = beanDeserializer;
    }

    @Override
    public JsonDeserializer<?> createContextual(DeserializationContext ctxt, @Nullable BeanProperty property)
        throws JsonMappingException {
        // the type being bound: for a block inside a map or list the property is the container, not the block
        JavaType type = ctxt.getContextualType();
        if (type == null) {
            throw JsonMappingException.from(ctxt, "no type to bind a configuration block to");
        }
        BeanDescription description = ctxt.getConfig().introspect(type);
        // the annotation that selected this class is read by Jackson's deserializer cache, not by the bean
        // deserializer factory, so this does not recurse
        JsonDeserializer<Object> bean = ctxt.getFactory().createBeanDeserializer(ctxt, type, description);
        if (bean instanceof ResolvableDeserializer resolvable) {
            resolvable.resolve(ctxt);
        }
        if (bean instanceof ContextualDeserializer contextual) {
            @SuppressWarnings("unchecked")
            JsonDeserializer<Object> inContext = (JsonDeserializer<Object>) contextual.createContextual(ctxt, property);
            bean = inContext;
        }
        return new OriginRecordingDeserializer(bean);
    }

    @Override
    public void resolve(DeserializationContext ctxt) {
        // the bean deserializer is created and resolved per context in createContextual
    }

    @Override
    public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        JsonDeserializer<Object> bean = bean(ctxt);
        String path = path(p);
        JsonNode block = ctxt.readTree(p);
        Object parsed;
        try (JsonParser blockParser = block.traverse(p.getCodec())) {
            blockParser.nextToken();
            parsed = bean.deserialize(blockParser, ctxt);
        }
        if (parsed instanceof CrossFieldRules rules) {
            Set<String> keys = new LinkedHashSet<>();
            block.fieldNames().forEachRemaining(keys::add);
            rules.parsedFrom(new Origin(path, keys));
        }
        return parsed;
    }

    @Override
    public Object deserializeWithType(JsonParser p, DeserializationContext ctxt, TypeDeserializer typeDeserializer)
        throws IOException {
        return typeDeserializer.deserializeTypedFromObject(p, ctxt);
    }

    private JsonDeserializer<Object> bean(DeserializationContext ctxt) throws JsonMappingException {
        if (beanDeserializer == null) {
            throw JsonMappingException.from(ctxt, "OriginRecordingDeserializer used without a context");
        }
        return beanDeserializer;
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
