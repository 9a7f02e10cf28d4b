package io.github.dropwizardhikari.config;

import jakarta.validation.ConstraintValidatorContext;
import org.jspecify.annotations.Nullable;

/** Text for Bean Validation's message templates. */
public final class MessageTemplates {
    private MessageTemplates() {
    }

    /**
     * @return {@code text} as a template that reads as itself: templates give {@code \}, <code>{</code>,
     * <code>}</code> and {@code $} a meaning, and a message may quote a configured value or a path holding any of them
     */
    public static String literal(String text) {
        return text.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}").replace("$", "\\$");
    }

    /** @return whether there is no {@code problem}; else it replaces the constraint's default message */
    public static boolean valid(ConstraintValidatorContext context, @Nullable String problem) {
        if (problem == null) {
            return true;
        }
        context.disableDefaultConstraintViolation();
        context.buildConstraintViolationWithTemplate(literal(problem)).addConstraintViolation();
        return false;
    }
}
