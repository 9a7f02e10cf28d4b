package io.github.dropwizardhikari.config.tomcat;

import java.lang.reflect.Field;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The Tomcat-only settings of a factory class, read from its {@link TomcatOnly} fields.
 */
public final class TomcatOnlySettings {
    private final Map<String, String> adviceByKey;

    private TomcatOnlySettings(Map<String, String> adviceByKey) {
        this.adviceByKey = adviceByKey;
    }

    public static TomcatOnlySettings of(Class<?> factoryClass) {
        return new TomcatOnlySettings(Arrays.stream(factoryClass.getDeclaredFields())
            .filter(field -> field.isAnnotationPresent(TomcatOnly.class))
            .collect(Collectors.toUnmodifiableMap(Field::getName,
                field -> field.getAnnotation(TomcatOnly.class).value())));
    }

    /**
     * @return what HikariCP does instead of the Tomcat-only setting {@code key}, if it is one
     */
    public Optional<String> advice(String key) {
        return Optional.ofNullable(adviceByKey.get(key));
    }

    /**
     * @return the warning logged once when {@code key} is set; it starts with the setting's full path
     */
    public String warning(String path, String key) {
        return path + ": ignoring this Tomcat pool setting: HikariCP has no such setting; "
            + advice(key).orElseThrow(() -> new IllegalArgumentException(key + " is not a Tomcat-only setting"))
            + ".";
    }
}
