package io.github.dropwizardhikari.dropin;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One random pool block: the fields it states, each with its YAML text, rendered under any top-level key
 * ({@code database:} for Dropwizard's factory, {@code hikari:} for ours).
 */
final class GeneratedBlock {
    private final int index;
    private final Map<String, String> scalars;
    private final Map<String, Map<String, String>> maps;

    GeneratedBlock(int index, Map<String, String> scalars, Map<String, Map<String, String>> maps) {
        this.index = index;
        this.scalars = new LinkedHashMap<>(scalars);
        this.maps = new LinkedHashMap<>(maps);
    }

    int index() {
        return index;
    }

    boolean states(String field) {
        return scalars.containsKey(field) || maps.containsKey(field);
    }

    Optional<String> scalar(String field) {
        return Optional.ofNullable(scalars.get(field));
    }

    Optional<Integer> size(String field) {
        return scalar(field).map(Integer::valueOf);
    }

    Map<String, String> map(String field) {
        return maps.getOrDefault(field, Collections.emptyMap());
    }

    /** The same block with some scalar fields added or replaced. */
    GeneratedBlock with(Map<String, String> overrides) {
        Map<String, String> merged = new LinkedHashMap<>(scalars);
        merged.putAll(overrides);
        return new GeneratedBlock(index, merged, maps);
    }

    String yaml(String root) {
        StringBuilder yaml = new StringBuilder(root).append(":\n");
        scalars.forEach((field, value) -> yaml.append("  ").append(field).append(": ").append(value).append('\n'));
        maps.forEach((field, entries) -> {
            yaml.append("  ").append(field).append(":");
            if (entries.isEmpty()) {
                yaml.append(" {}\n");
                return;
            }
            yaml.append('\n');
            entries.forEach((key, value) -> yaml.append("    ").append(key).append(": \"").append(value)
                .append("\"\n"));
        });
        return yaml.toString();
    }

    @Override
    public String toString() {
        return "block #" + index + ":\n" + yaml("database");
    }
}
