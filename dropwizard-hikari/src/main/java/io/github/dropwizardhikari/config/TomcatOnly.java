package io.github.dropwizardhikari.config;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a setting of Dropwizard's Tomcat pool that HikariCP does not have. It is accepted so that a renamed
 * {@code database:} block still parses, and setting it logs one warning that says what HikariCP does instead.
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
public @interface TomcatOnly {
    /**
     * @return what HikariCP does instead, completing "HikariCP has no such setting; ..."
     */
    String value();
}
