package io.github.dropwizardhikari.credentials;

import io.github.dropwizardhikari.config.MessageTemplates;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import org.jspecify.annotations.Nullable;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/** Checks {@link ReadableFile}: says which file, and why it cannot be used. Never reads the file's content. */
public final class ReadableFileValidator implements ConstraintValidator<ReadableFile, String> {
    @Override
    public boolean isValid(@Nullable String value, ConstraintValidatorContext context) {
        String problem = value == null ? null : problem(value);
        return MessageTemplates.valid(context, problem == null ? null : "must name a readable file: " + problem);
    }

    @Nullable
    private static String problem(String value) {
        if (value.isBlank()) {
            return "the path is empty";
        }
        Path path;
        try {
            path = Path.of(value);
        } catch (InvalidPathException e) {
            return value + " is not a valid path (" + e.getReason() + ")";
        }
        if (!Files.exists(path)) {
            return value + " does not exist";
        }
        if (!Files.isRegularFile(path)) {
            return value + " is not a regular file";
        }
        if (!Files.isReadable(path)) {
            return value + " is not readable by this process";
        }
        return null;
    }
}
