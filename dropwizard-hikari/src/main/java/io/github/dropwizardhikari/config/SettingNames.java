package io.github.dropwizardhikari.config;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.lang.reflect.Field;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The YAML names of each setting of a factory class: its own name and its HikariCP aliases, read from the
 * {@code @JsonProperty} and {@code @JsonAlias} annotations on its fields.
 */
final class SettingNames {
    private final Map<String, List<String>> aliasesByField;

    private SettingNames(Map<String, List<String>> aliasesByField) {
        this.aliasesByField = aliasesByField;
    }

    public static SettingNames of(Class<?> factoryClass) {
        Map<String, List<String>> aliases = new LinkedHashMap<>();
        for (Class<?> type = factoryClass; type != Object.class; type = type.getSuperclass()) {
            for (Field field : type.getDeclaredFields()) {
                JsonAlias alias = field.getAnnotation(JsonAlias.class);
                if (alias != null) {
                    aliases.put(name(field), List.of(alias.value()));
                }
            }
        }
        return new SettingNames(aliases);
    }

    private static String name(Field field) {
        JsonProperty property = field.getAnnotation(JsonProperty.class);
        return property == null || property.value().isEmpty() ? field.getName() : property.value();
    }

    /** @return HikariCP's names for {@code field}; empty when it has none */
    public List<String> aliases(String field) {
        return aliasesByField.getOrDefault(field, List.of());
    }

    /** @return every setting that has aliases, with all its names: its own first */
    public Map<String, List<String>> allNames() {
        Map<String, List<String>> all = new LinkedHashMap<>();
        aliasesByField.forEach((field, aliases) -> all.put(field,
            Stream.concat(Stream.of(field), aliases.stream()).toList()));
        return all;
    }
}
