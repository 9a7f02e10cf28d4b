package io.github.dropwizardhikari.config;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The lowest value HikariCP honours for a duration setting (one of {@link HikariFloors}).
 *
 * <p>A field with a {@code @JsonAlias} carries Dropwizard's name, and its aliases are HikariCP's. Under
 * Dropwizard's name the setting follows Dropwizard's rule (greater than 0) and a value below the floor is raised
 * to it, with one warning: every block Dropwizard accepts starts. Under HikariCP's name, and for HikariCP-only
 * fields, a value below the floor is an error. {@link SettingsValidator} applies it.</p>
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
public @interface HikariFloor {
    /**
     * @return the floor in milliseconds, one of {@link HikariFloors}
     */
    long millis();

    /**
     * @return what 0 means under HikariCP's name ({@code "off"}, {@code "no limit"}), or empty when 0 is below
     * the floor like any other value
     */
    String zeroMeans() default "";

    /**
     * @return why HikariCP needs the floor, for messages
     */
    String why();
}
