package io.github.dropwizardhikari.dropin;

import io.dropwizard.db.DataSourceFactory;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * In Java the swap from {@code DataSourceFactory} to {@code HikariDataSourceFactory} is a type rename: every
 * public method of Dropwizard's factory exists on ours with the same name, parameter types and return type,
 * generics included, with no exception list.
 */
class DataSourceFactorySignaturesTest {

    @Test
    void everyPublicMethodOfDropwizardsFactoryExistsWithTheSameSignature() {
        List<Method> dropwizard = publicMethods(DataSourceFactory.class);
        assertThat(dropwizard).hasSizeGreaterThan(70);

        List<String> missing = dropwizard.stream()
            .filter(method -> counterpart(method).isEmpty())
            .map(DataSourceFactorySignaturesTest::signature)
            .toList();
        List<String> differentReturn = dropwizard.stream()
            .filter(method -> counterpart(method).isPresent())
            .filter(method -> !counterpart(method).get().getGenericReturnType().getTypeName()
                .equals(method.getGenericReturnType().getTypeName()))
            .map(method -> signature(method) + " is " + signature(counterpart(method).get()) + " here")
            .toList();

        assertThat(missing).as("methods of DataSourceFactory that HikariDataSourceFactory lacks").isEmpty();
        assertThat(differentReturn).as("methods whose return type differs").isEmpty();
    }

    @Test
    void tomcatOnlySettersAreDeprecated() {
        List<String> notDeprecated = DropwizardFields.tomcatOnly().stream()
            .map(field -> "set" + Character.toUpperCase(field.charAt(0)) + field.substring(1))
            .flatMap(name -> Arrays.stream(HikariDataSourceFactory.class.getMethods())
                .filter(method -> method.getName().equals(name)))
            .filter(method -> !method.isAnnotationPresent(Deprecated.class))
            .map(DataSourceFactorySignaturesTest::signature)
            .toList();

        assertThat(DropwizardFields.tomcatOnly()).hasSizeGreaterThan(15);
        assertThat(notDeprecated).isEmpty();
    }

    private static List<Method> publicMethods(Class<?> type) {
        return Arrays.stream(type.getMethods())
            .filter(method -> method.getDeclaringClass() != Object.class)
            .filter(method -> Modifier.isPublic(method.getModifiers()) && !method.isSynthetic())
            .toList();
    }

    /** The method of ours with the same name and the same parameter types, generics included. */
    private static Optional<Method> counterpart(Method method) {
        return Arrays.stream(HikariDataSourceFactory.class.getMethods())
            .filter(candidate -> candidate.getName().equals(method.getName()))
            .filter(candidate -> typeNames(candidate.getGenericParameterTypes())
                .equals(typeNames(method.getGenericParameterTypes())))
            .findFirst();
    }

    private static String typeNames(Type[] types) {
        return Arrays.stream(types).map(Type::getTypeName).collect(Collectors.joining(", "));
    }

    private static String signature(Method method) {
        return method.getGenericReturnType().getTypeName() + " " + method.getName() + "("
            + typeNames(method.getGenericParameterTypes()) + ")";
    }
}
