package io.github.dropwizardhikari.config;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The lowest value HikariCP honours for a duration setting. Under Dropwizard's name (a field with a
 * {@code @JsonAlias}) a positive value below it is raised with a warning, so every block Dropwizard accepts starts;
 * under HikariCP's name, or on a HikariCP-only field, it is an error.
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
public @interface HikariFloor {
    /** @return the floor in milliseconds, one of {@link HikariFloors} */
    long millis();

    /**
     * @return what 0 means under HikariCP's name ({@code "off"}, {@code "no limit"}), or empty when 0 is below
     * the floor like any other value
     */
    String zeroMeans() default "";

    /** @return why HikariCP needs the floor, for messages */
    String why();
}
