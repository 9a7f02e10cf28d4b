package io.github.dropwizardhikari.config;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Checks a configuration block with {@link SettingsCheck} when Bean Validation validates it (Dropwizard's
 * {@code check} and {@code server} commands): each error is reported at its setting's path
 * ({@code hikari.minSize ...}), each adjusted value is logged once as a warning.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = SettingsValidator.class)
public @interface ValidSettings {
    String message() default "has invalid settings";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
