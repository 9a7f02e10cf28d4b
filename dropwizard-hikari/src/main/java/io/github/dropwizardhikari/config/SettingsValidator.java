package io.github.dropwizardhikari.config;

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
     * Logs each warning of {@code check} that {@code block} has not logged yet, on the logger of the block's class.
     */
    public static void warnOnce(CrossFieldRules block, RuleCheck check) {
        Logger logger = LoggerFactory.getLogger(block.getClass());
        check.warnings().forEach((key, message) -> {
            if (block.loggedOnce().firstTime(key)) {
                logger.warn(message);
            }
        });
    }
}
