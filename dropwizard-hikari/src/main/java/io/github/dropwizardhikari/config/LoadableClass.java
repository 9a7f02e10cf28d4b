package io.github.dropwizardhikari.config;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A class HikariCP will load and instantiate: on the class path, a {@link #value()}, with a public no-argument
 * constructor. Checked at validation, so {@code check} names the field instead of the pool failing later.
 */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = LoadableClassValidator.class)
public @interface LoadableClass {
    /** @return the type the class must implement */
    Class<?> value();

    String message() default "cannot be loaded";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
