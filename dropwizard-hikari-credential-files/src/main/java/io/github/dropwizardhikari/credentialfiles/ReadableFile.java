package io.github.dropwizardhikari.credentialfiles;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import org.jspecify.annotations.Nullable;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

import static io.dropwizard.validation.InterpolationHelper.escapeMessageParameter;

/** A file this process can read now, if one is given; its content is never read. */
@Target(ElementType.FIELD)
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = ReadableFile.Validator.class)
@interface ReadableFile {
    String message() default "must name a readable file";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};

    /** Public because Bean Validation instantiates it; its enclosing type keeps it out of the API. */
    final class Validator implements ConstraintValidator<ReadableFile, String> {
        @Override
        public boolean isValid(@Nullable String file, ConstraintValidatorContext context) {
            if (file == null) {
                return true;
            }
            String problem;
            try {
                Path path = Path.of(file);
                problem = file.isBlank() ? "the path is empty" : !Files.exists(path) ? file + " does not exist"
                    : !Files.isRegularFile(path) ? file + " is not a regular file"
                    : !Files.isReadable(path) ? file + " is not readable by this process" : null;
            } catch (InvalidPathException e) {
                problem = file + " is not a valid path (" + e.getReason() + ")";
            }
            if (problem == null) {
                return true;
            }
            // a message template gives \ { } $ a meaning, and a path may hold them
            context.disableDefaultConstraintViolation();
            context.buildConstraintViolationWithTemplate("must name a readable file: "
                + escapeMessageParameter(problem)).addConstraintViolation();
            return false;
        }
    }
}
