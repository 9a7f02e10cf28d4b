package io.github.dropwizardhikari.config;

import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Validates a {@link ValidSettings} block: errors go on the setting's property node, so Dropwizard prints its full
 * path; warnings are logged once per block, on the logger of the block's class.
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

    /** Logs each warning of {@code check} that {@code block} has not logged yet. */
    public static void warnOnce(CrossFieldRules block, RuleCheck check) {
        Logger logger = LoggerFactory.getLogger(block.getClass());
        check.warnings().forEach((key, message) -> {
            if (block.loggedOnce().firstTime(key)) {
                logger.warn(message);
            }
        });
    }
}
