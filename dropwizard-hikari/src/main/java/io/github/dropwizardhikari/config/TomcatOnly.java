package io.github.dropwizardhikari.config;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A setting of Dropwizard's Tomcat pool that HikariCP lacks: accepted so a Tomcat {@code database:} block still
 * parses, with one warning saying what HikariCP does instead.
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
public @interface TomcatOnly {
    /** @return what HikariCP does instead, completing "HikariCP has no such setting; ..." */
    String value();
}
