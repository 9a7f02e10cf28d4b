package io.github.dropwizardhikari.config;

import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Modifier;

/** Loads a {@link LoadableClass} as HikariCP will (context class loader, else HikariCP's), without initializing it. */
public final class LoadableClassValidator implements ConstraintValidator<LoadableClass, String> {
    private Class<?> type = Object.class;

    @Override
    public void initialize(LoadableClass annotation) {
        this.type = annotation.value();
    }

    @Override
    public boolean isValid(@Nullable String className, ConstraintValidatorContext context) {
        return className == null || className.isBlank() || MessageTemplates.valid(context, problem(className.trim()));
    }

    @Nullable
    private String problem(String className) {
        Class<?> loaded = load(className);
        if (loaded == null) {
            return "cannot be loaded: class " + className + " is not on the class path";
        }
        if (!type.isAssignableFrom(loaded)) {
            return "cannot be used: " + className + " is not a " + type.getName();
        }
        if (Modifier.isAbstract(loaded.getModifiers())) {
            return "cannot be used: " + className + " is abstract";
        }
        try {
            if (!Modifier.isPublic(loaded.getDeclaredConstructor().getModifiers())) {
                return "cannot be used: the constructor of " + className + " is not public";
            }
        } catch (NoSuchMethodException e) {
            return "cannot be used: " + className + " has no constructor without arguments";
        }
        return null;
    }

    @Nullable
    private static Class<?> load(String className) {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        for (ClassLoader loader : new ClassLoader[] {context, com.zaxxer.hikari.HikariConfig.class.getClassLoader()}) {
            if (loader == null) {
                continue;
            }
            try {
                return Class.forName(className, false, loader);
            } catch (ClassNotFoundException | LinkageError e) {
                // try the next loader
            }
        }
        return null;
    }
}
