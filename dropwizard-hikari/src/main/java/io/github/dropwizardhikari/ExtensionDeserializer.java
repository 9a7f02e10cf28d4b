package io.github.dropwizardhikari;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import com.fasterxml.jackson.databind.jsontype.NamedType;
import com.fasterxml.jackson.databind.jsontype.TypeDeserializer;

import java.io.IOException;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Reads one entry of {@code extensions:} as the {@link PoolExtension} its {@code type} names. A type of this project
 * whose module is not on the class path is told which module to add; any other unknown type gets the known types,
 * the closest first, as Dropwizard answers an unknown key.
 */
final class ExtensionDeserializer extends StdDeserializer<PoolExtension> {
    private static final String MODULE_PREFIX = "io.github.dropwizard-hikari:dropwizard-hikari-";
    // the types of this project's extension modules, so that a module left out is named and a misspelt type is not
    // taken for a module
    static final Set<String> PUBLISHED_TYPES = Set.of("admission", "credential-files", "fair-borrowing",
        "fault-handling", "hdr-metrics", "holders", "operations");

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
                : PUBLISHED_TYPES.contains(type)
                ? "no module on the class path provides the extension '" + type + "': add the dependency "
                    + MODULE_PREFIX + type
                : unknown(type, onClassPath(context.getConfig())),
                missing.getBaseType(), type);
        }
    }

    private static String unknown(String type, Set<String> onClassPath) {
        Set<String> known = new TreeSet<>(PUBLISHED_TYPES);
        known.addAll(onClassPath);
        // a stable sort of the alphabetical set: ties stay alphabetical
        List<String> closestFirst = known.stream().sorted(Comparator.comparingInt(name -> distance(type, name)))
            .toList();
        String closest = closestFirst.get(0);
        return "unknown extension type '" + type + "': did you mean '" + closest + "'"
            + (onClassPath.contains(closest) ? "" : " (module " + MODULE_PREFIX + closest + ")")
            + "? The known types, closest first: " + String.join(", ", closestFirst) + "; on the class path: "
            + (onClassPath.isEmpty() ? "none" : String.join(", ", new TreeSet<>(onClassPath)));
    }

    // the types Dropwizard's Discoverable registration found, which Jackson resolves names against
    private static Set<String> onClassPath(DeserializationConfig config) {
        return config.getSubtypeResolver().collectAndResolveSubtypesByTypeId(config,
                config.introspectClassAnnotations(PoolExtension.class).getClassInfo()).stream()
            .filter(NamedType::hasName).map(NamedType::getName).collect(Collectors.toSet());
    }

    // the edits (insertions, deletions, replacements) between two names: the measure Dropwizard ranks its
    // "Did you mean" list by
    static int distance(String from, String to) {
        int[] row = IntStream.rangeClosed(0, to.length()).toArray();
        for (int i = 1; i <= from.length(); i++) {
            int diagonal = row[0];
            row[0] = i;
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
