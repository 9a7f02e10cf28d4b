package io.github.dropwizardhikari.dropin;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.db.ManagedDataSource;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import org.junit.jupiter.api.Test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Java caller that passes {@code null} to a setter gets Dropwizard's meaning: for every setter of
 * {@code DataSourceFactory} that takes an object, the getter then answers as Dropwizard's does (or both setters
 * refuse the null), except where this factory documents another answer. Where HikariCP cannot do what the null
 * means in Dropwizard's pool, the pool uses the nearest value and says so in one WARN.
 */
class NullMeaningTest {
    // getters whose answer after a null differs from Dropwizard's on purpose, and why
    private static final Map<String, String> DOCUMENTED = Map.of(
        "ValidationQueryTimeout", "HikariCP always bounds a connection test: the getter says the bound the pool "
            + "uses (5 seconds, or maxWaitForConnection if shorter), which Dropwizard's clients use for their "
            + "health checks");

    @Test
    void everyNullableSetterKeepsDropwizardsMeaning() throws Exception {
        List<String> checked = new ArrayList<>();
        List<String> differences = new ArrayList<>();
        for (Method setter : DataSourceFactory.class.getMethods()) {
            if (!setter.getName().startsWith("set") || setter.getParameterCount() != 1
                || setter.getParameterTypes()[0].isPrimitive()) {
                continue;
            }
            String property = setter.getName().substring(3);
            Optional<Method> getter = getter(property);
            if (getter.isEmpty() || DOCUMENTED.containsKey(property)) {
                continue;
            }
            Object theirs = afterNull(new DataSourceFactory(), setter, getter.get());
            Method ours = HikariDataSourceFactory.class.getMethod(setter.getName(), setter.getParameterTypes());
            Object mine = afterNull(new HikariDataSourceFactory(), ours,
                HikariDataSourceFactory.class.getMethod(getter.get().getName()));
            checked.add(property);
            if (!Objects.equals(theirs, mine)) {
                differences.add(property + ": Dropwizard " + theirs + ", here " + mine);
            }
        }
        assertThat(checked).as("setters taking an object").hasSizeGreaterThan(15)
            .contains("MaxConnectionAge", "AutoCommitByDefault", "ReadOnlyByDefault", "DefaultTransactionIsolation");
        assertThat(differences).isEmpty();
    }

    @Test
    void nullMeansWhatDropwizardMeansInThePool() {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:null-meaning");
        factory.setMaxConnectionAge(null);
        factory.setAutoCommitByDefault(null);
        factory.setReadOnlyByDefault(null);
        factory.setValidationQueryTimeout(null);

        HikariConfig config = factory.toHikariConfig(new MetricRegistry(), "null-meaning");

        assertThat(config.getMaxLifetime()).as("no limit").isZero();
        assertThat(config.isAutoCommit()).as("the driver's default: JDBC connections start in auto-commit").isTrue();
        assertThat(config.isReadOnly()).as("the driver's default: JDBC connections start writable").isFalse();
        assertThat(config.getValidationTimeout()).isEqualTo(5_000);
    }

    @Test
    void aNullConnectionStateIsAdjustedToJdbcsDefaultWithOneWarningEach() {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:null-states");
        factory.setAutoCommitByDefault(null);
        factory.setReadOnlyByDefault(null);

        try (CapturedWarnings warnings = new CapturedWarnings()) {
            factory.toHikariConfig(new MetricRegistry(), "null-states");
            factory.toHikariConfig(new MetricRegistry(), "null-states");

            String why = "; using %s instead: HikariCP sets this state on every connection it hands out, so the "
                + "driver's own default cannot stay; JDBC's default is %s";
            assertThat(warnings.startingWith("autoCommitByDefault"))
                .containsExactly("autoCommitByDefault is null" + why.formatted(true, "auto-commit on"));
            assertThat(warnings.startingWith("readOnlyByDefault"))
                .containsExactly("readOnlyByDefault is null" + why.formatted(false, "writable"));
        }
        assertThat(factory.getAutoCommitByDefault()).as("the factory keeps what it was given").isNull();
        assertThat(factory.getReadOnlyByDefault()).isNull();
    }

    @Test
    void aGivenConnectionStateIsNotWarnedAbout() {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:given-states");
        factory.setAutoCommitByDefault(false);

        try (CapturedWarnings warnings = new CapturedWarnings()) {
            factory.toHikariConfig(new MetricRegistry(), "given-states");

            assertThat(warnings.startingWith("autoCommitByDefault")).isEmpty();
            assertThat(warnings.startingWith("readOnlyByDefault")).isEmpty();
        }
    }

    /** H2 reads {@code AUTOCOMMIT=OFF} in the URL: the driver's own default is off, and the pool overrides it. */
    @Test
    void aDriverWhoseDefaultIsNotToAutoCommitHandsOutAutoCommittingConnections() throws Exception {
        String url = "jdbc:h2:mem:driver-default-" + System.nanoTime() + ";AUTOCOMMIT=OFF";
        try (Connection plain = DriverManager.getConnection(url)) {
            assertThat(plain.getAutoCommit()).as("the driver's own default, without the pool").isFalse();
        }
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl(url);
        factory.setAutoCommitByDefault(null);
        ManagedDataSource dataSource = factory.build(new MetricRegistry(), "driver-default");
        try {
            dataSource.start();
            try (Connection borrowed = dataSource.getConnection()) {
                assertThat(borrowed.getAutoCommit()).as("JDBC's default, which HikariCP sets").isTrue();
            }
        } finally {
            dataSource.stop();
        }
    }

    private static Optional<Method> getter(String property) {
        return Arrays.stream(DataSourceFactory.class.getMethods())
            .filter(method -> method.getParameterCount() == 0)
            .filter(method -> method.getName().equals("get" + property) || method.getName().equals("is" + property))
            .findFirst();
    }

    private static Object afterNull(Object factory, Method setter, Method getter) throws Exception {
        try {
            setter.invoke(factory, new Object[] {null});
        } catch (InvocationTargetException refused) {
            return "refused with " + refused.getCause().getClass().getSimpleName();
        }
        return getter.invoke(factory);
    }
}
