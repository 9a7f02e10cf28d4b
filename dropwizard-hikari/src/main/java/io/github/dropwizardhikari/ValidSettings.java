package io.github.dropwizardhikari;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import org.jspecify.annotations.Nullable;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;

import static io.dropwizard.validation.InterpolationHelper.escapeMessageParameter;

/**
 * Checks a settings block under Bean Validation (Dropwizard's {@code check} and {@code server}): each error on its
 * setting's property node, so Dropwizard prints its full path ({@code hikari.minSize ...}); each warning of its
 * {@link SettingsCheck} logged once per block.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = ValidSettings.Validator.class)
@interface ValidSettings {
    String message() default "has invalid settings";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** Public because Bean Validation instantiates it; its enclosing type keeps it out of the API. */
    final class Validator implements ConstraintValidator<ValidSettings, HikariDataSourceFactory> {
        @Override
        public boolean isValid(@Nullable HikariDataSourceFactory factory, ConstraintValidatorContext context) {
            List<SettingsCheck.Error> errors = factory == null ? List.of()
                : new SettingsCheck(factory).logOnce().errors();
            if (errors.isEmpty()) {
                return true;
            }
            context.disableDefaultConstraintViolation();
            for (SettingsCheck.Error error : errors) {
                // a message may quote a configured value or a path: Dropwizard's escaping makes it read as itself
                context.buildConstraintViolationWithTemplate(escapeMessageParameter(error.message()))
                    .addPropertyNode(error.field())
                    .addConstraintViolation();
            }
            return false;
        }
    }
}
