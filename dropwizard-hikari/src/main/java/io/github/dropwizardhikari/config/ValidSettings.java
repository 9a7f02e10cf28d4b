package io.github.dropwizardhikari.config;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Checks a block with {@link SettingsCheck} under Bean Validation (Dropwizard's {@code check} and {@code server}):
 * errors at their setting's path ({@code hikari.minSize ...}), adjusted values as one warning each.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = SettingsValidator.class)
public @interface ValidSettings {
    String message() default "has invalid settings";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
