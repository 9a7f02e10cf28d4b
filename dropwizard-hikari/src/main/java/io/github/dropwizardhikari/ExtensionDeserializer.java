package io.github.dropwizardhikari;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import com.fasterxml.jackson.databind.jsontype.NamedType;
import com.fasterxml.jackson.databind.jsontype.TypeDeserializer;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static java.util.Comparator.comparingInt;

/**
 * Reads one entry of {@code extensions:} as the {@link PoolExtension} its {@code type} names. A type of this project
 * whose module is not on the class path is told which module to add; any other unknown type gets the known types,
 * the closest first, as Dropwizard answers an unknown key.
 */
final class ExtensionDeserializer extends StdDeserializer<PoolExtension> {
    private static final String MODULE_PREFIX = "io.github.dropwizard-hikari:dropwizard-hikari-";
    // the project's extension modules' types: a module left out is named, a misspelt type is not taken for one
    static final Set<String> PUBLISHED_TYPES = Set.of("admission", "credential-files", "fair-borrowing",
        "fault-handling", "hdr-metrics", "holders", "operations");

    ExtensionDeserializer() {
        super(PoolExtension.class);
    }

    // Jackson hands each polymorphic element here; deserialize resolves its type, to catch one no module provides
    @Override
    public Object deserializeWithType(JsonParser parser, DeserializationContext context,
                                      TypeDeserializer typeDeserializer) throws IOException {
        return deserialize(parser, context);
    }

    @Override
    public PoolExtension deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        try {
            return context.readTreeAsValue(context.readTree(parser), PoolExtension.class);
        } catch (InvalidTypeIdException missing) {
            String type = missing.getTypeId();
            throw InvalidTypeIdException.from(parser, type == null
                ? "an extension needs a 'type'; " + missing.getOriginalMessage()
                : PUBLISHED_TYPES.contains(type)
                ? "no module on the class path provides the extension '" + type + "': add the dependency "
                    + MODULE_PREFIX + type
                : unknown(type, context.getConfig()),
                missing.getBaseType(), type);
        }
    }

    private static String unknown(String type, DeserializationConfig config) {
        // the types Dropwizard's Discoverable registration found, which Jackson resolves names against
        Set<String> onClassPath = config.getSubtypeResolver().collectAndResolveSubtypesByTypeId(config,
                config.introspectClassAnnotations(PoolExtension.class).getClassInfo()).stream()
            .filter(NamedType::hasName).map(NamedType::getName).collect(Collectors.toCollection(TreeSet::new));
        List<String> closestFirst = Stream.concat(PUBLISHED_TYPES.stream(), onClassPath.stream()).distinct()
            .sorted(comparingInt((String name) -> distance(type, name)).thenComparing(name -> name)).toList();
        String closest = closestFirst.get(0);
        return "unknown extension type '" + type + "': did you mean '" + closest + "'"
            + (onClassPath.contains(closest) ? "" : " (module " + MODULE_PREFIX + closest + ")")
            + "? The known types, closest first: " + String.join(", ", closestFirst) + "; on the class path: "
            + (onClassPath.isEmpty() ? "none" : String.join(", ", onClassPath));
    }

    // the edits (insertions, deletions, replacements) between two names, by which Dropwizard ranks "Did you mean"
    static int distance(String from, String to) {
        int[] row = IntStream.rangeClosed(0, to.length()).toArray();
        for (int i = 1; i <= from.length(); i++) {
            int diagonal = row[0]++;
            for (int j = 1; j <= to.length(); j++) {
                int above = row[j];
                row[j] = Math.min(diagonal + (from.charAt(i - 1) == to.charAt(j - 1) ? 0 : 1),
                    Math.min(above, row[j - 1]) + 1);
                diagonal = above;
            }
        }
        return row[to.length()];
    }
}
