package io.github.dropwizardhikari.dropin;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.db.DataSourceFactory;

import java.beans.Introspector;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** The YAML fields of Dropwizard's own {@code DataSourceFactory}, read from the class on the classpath. */
final class DropwizardFields {
    private DropwizardFields() {
    }

    /** Every field a {@code database:} block can state: the names of the factory's JSON setters. */
    static Set<String> all() {
        return Arrays.stream(DataSourceFactory.class.getMethods())
            .filter(method -> method.isAnnotationPresent(JsonProperty.class))
            .filter(method -> method.getName().startsWith("set") && method.getParameterCount() == 1)
            .map(DropwizardFields::yamlName)
            .collect(Collectors.toCollection(TreeSet::new));
    }

    /** The fields HikariCP has no counterpart for: a {@code hikari:} block accepts them with a warning. */
    static Set<String> tomcatOnly() {
        Set<String> fields = all();
        Arrays.stream(MappedField.values()).map(MappedField::yamlName).forEach(fields::remove);
        fields.remove("properties");
        return fields;
    }

    private static String yamlName(Method setter) {
        String explicit = setter.getAnnotation(JsonProperty.class).value();
        return explicit.isEmpty() ? Introspector.decapitalize(setter.getName().substring(3)) : explicit;
    }
}
