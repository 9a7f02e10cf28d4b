package io.github.dropwizardhikari.config.rules;

import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Validates a {@link ValidSettings} block. Errors become violations on the setting's own property node, so that
 * Dropwizard prints them with the full path; adjusted values are logged as warnings, once per block, on the
 * logger of the block's class, as are the notices of values whose effect differs from Dropwizard's pool.
 */
public final class SettingsValidator implements ConstraintValidator<ValidSettings, CrossFieldRules> {
    @Override
    public boolean isValid(CrossFieldRules block, ConstraintValidatorContext context) {
        if (block == null) {
            return true;
        }
        RuleCheck check = SettingsCheck.run(block);
        warnOnce(block, check);
        if (check.errors().isEmpty()) {
            return true;
        }
        context.disableDefaultConstraintViolation();
        for (RuleCheck.Error error : check.errors()) {
            context.buildConstraintViolationWithTemplate(MessageTemplates.literal(error.message()))
                .addPropertyNode(error.field())
                .addConstraintViolation();
        }
        return false;
    }

    /**
     * Logs each adjustment of {@code check} that {@code block} has not logged yet.
     */
    public static void warnOnce(Object block, RuleCheck check) {
        Logger logger = LoggerFactory.getLogger(block.getClass());
        for (Adjustment adjustment : check.adjustments()) {
            if (LoggedOnce.firstTime(block, "adjusted:" + adjustment.field())) {
                logger.warn(adjustment.warning(check.origin().pathOf(adjustment.field())));
            }
        }
        check.notices().forEach((field, message) -> {
            if (LoggedOnce.firstTime(block, "notice:" + field)) {
                logger.warn(check.origin().pathOf(field) + " " + message);
            }
        });
    }
}
