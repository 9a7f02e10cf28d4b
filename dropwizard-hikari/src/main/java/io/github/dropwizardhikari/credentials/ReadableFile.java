package io.github.dropwizardhikari.credentials;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** The annotated path, when set, names a regular file that this process can read now. */
@Documented
@Target({ElementType.FIELD, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = ReadableFileValidator.class)
@interface ReadableFile {
    String message() default "must name a readable file";

    Class<?>[] groups() default {};

    Class<? extends Payload>[] payload() default {};
}
