package io.github.dropwizardhikari.faulthandling;

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
 * The rules of {@link FaultHandlingExtension}'s settings, each reported on its field, so the message names the
 * field's full path ({@code hikari.extensions[0].evictOn}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = FaultHandlingRules.Validator.class)
@interface FaultHandlingRules {
    String message() default "";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    final class Validator implements ConstraintValidator<FaultHandlingRules, FaultHandlingExtension> {
        private static final long MIN_PROBE_INTERVAL_MILLIS = 10;
        private static final long MIN_SESSION_CHECK_INTERVAL_MILLIS = 100;
        private static final long MIN_SILENCE_LIMIT_MILLIS = 1_000;

        @Override
        public boolean isValid(FaultHandlingExtension settings, ConstraintValidatorContext context) {
            context.disableDefaultConstraintViolation();
            boolean valid = true;
            String invalid = settings.getEvictOn() == null ? null : firstInvalid(settings.getEvictOn());
            if (invalid != null) {
                valid = false;
                report(context, "evictOn", "accepts five-character SQLStates (08S01) and whole-number vendor error "
                    + "codes (2013), not '" + invalid + "'");
            }
            long interval = settings.getRecoveryProbeInterval() == null ? 0
                : settings.getRecoveryProbeInterval().toMilliseconds();
            if (interval < 0 || (interval > 0 && interval < MIN_PROBE_INTERVAL_MILLIS)) {
                valid = false;
                report(context, "recoveryProbeInterval", "must be 0 (off) or at least " + MIN_PROBE_INTERVAL_MILLIS
                    + " milliseconds");
            }
            long check = settings.getSessionCheckInterval() == null ? 0
                : settings.getSessionCheckInterval().toMilliseconds();
            if (check < 0 || (check > 0 && check < MIN_SESSION_CHECK_INTERVAL_MILLIS)) {
                valid = false;
                report(context, "sessionCheckInterval", "must be 0 (off) or at least "
                    + MIN_SESSION_CHECK_INTERVAL_MILLIS + " milliseconds");
            }
            if (settings.getSilenceLimit() != null
                && settings.getSilenceLimit().toMilliseconds() < MIN_SILENCE_LIMIT_MILLIS) {
                valid = false;
                report(context, "silenceLimit", "must be at least " + MIN_SILENCE_LIMIT_MILLIS + " milliseconds");
            }
            return valid;
        }

        /** @return the first entry that is neither a five-character SQLState nor a vendor code, or {@code null} */
        @Nullable
        static String firstInvalid(List<String> entries) {
            for (String entry : entries) {
                String trimmed = entry == null ? "" : entry.trim();
                if (!trimmed.matches("[0-9A-Za-z]{5}") && !trimmed.matches("-?[0-9]{1,9}")) {
                    return entry == null ? "null" : entry;
                }
            }
            return null;
        }

        private static void report(ConstraintValidatorContext context, String field, String message) {
            // the message holds what the user wrote: escaped, so the validator does not interpret it
            context.buildConstraintViolationWithTemplate(escapeMessageParameter(message)).addPropertyNode(field)
                .addConstraintViolation();
        }
    }
}
