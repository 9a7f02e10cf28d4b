package io.github.dropwizardhikari;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.util.Duration;
import jakarta.validation.Validator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.ResultSet;
import java.util.List;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Values Dropwizard accepts but HikariCP cannot honour exactly: each is accepted, replaced with the nearest safe
 * value, and warned about once at validation, with its full path, the value asked, the value used and why.
 */
class AdjustedValuesTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, values HikariCP cannot honour, adjusted with a warning."
            + " WARN and ERROR lines in this log are expected.");
    }

    private final Logger logger = (Logger) LoggerFactory.getLogger(HikariDataSourceFactory.class);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private final MetricRegistry metrics = new MetricRegistry();

    @BeforeEach
    void captureWarnings() {
        appender.start();
        logger.addAppender(appender);
    }

    @AfterEach
    void stopCapturing() {
        logger.detachAppender(appender);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "adjusted_connection_timeout_floor.yml  | hikari.maxWaitForConnection is 100 milliseconds; using 250 milliseconds instead: HikariCP waits at least that long",
        "adjusted_validation_timeout_floor.yml  | hikari.validationQueryTimeout is 200 milliseconds; using 250 milliseconds instead: HikariCP gives a connection test at least that long",
        "adjusted_validation_timeout_above_connection_timeout.yml | hikari.validationQueryTimeout is 2 seconds; using 1 second instead: a connection test must fit in maxWaitForConnection (1 second)",
        "adjusted_idle_timeout_floor.yml        | hikari.minIdleTime is 5 seconds; using 10 seconds instead: HikariCP retires idle connections no sooner than that",
        "adjusted_idle_timeout_near_max_lifetime.yml | hikari.minIdleTime is 30 minutes; using 1799 seconds instead: HikariCP needs it at least 1 second below maxConnectionAge (30 minutes)",
        "adjusted_max_lifetime_floor.yml        | hikari.maxConnectionAge is 20 seconds; using 30 seconds instead: HikariCP retires connections no sooner than that",
        "adjusted_max_size_from_min_size.yml    | hikari.maxSize is 10 (default); using 15 instead: minSize is 15",
        "adjusted_max_size_from_initial_size.yml | hikari.maxSize is 10 (default); using 20 instead: initialSize is 20",
        "adjusted_auto_commit_null.yml          | hikari.autoCommitByDefault is null; using true instead: HikariCP sets this state on every connection it hands out",
        "adjusted_read_only_null.yml            | hikari.readOnlyByDefault is null; using false instead: HikariCP sets this state on every connection it hands out",
        // under HikariCP's names the same rules, each warning naming the setting as the block spells it
        "adjusted_connection_timeout_alias_floor.yml | hikari.connectionTimeout is 100 milliseconds; using 250 milliseconds instead: HikariCP waits at least that long",
        "adjusted_validation_timeout_alias_above_connection_timeout.yml | hikari.validationTimeout is 2 seconds; using 1 second instead: a connection test must fit in connectionTimeout (1 second)",
        "adjusted_idle_timeout_alias_near_max_lifetime.yml | hikari.idleTimeout is 30 minutes; using 1799 seconds instead: HikariCP needs it at least 1 second below maxLifetime (30 minutes)",
        "adjusted_max_lifetime_alias_floor.yml  | hikari.maxLifetime is 20 seconds; using 30 seconds instead: HikariCP retires connections no sooner than that",
    })
    void isAcceptedAdjustedAndWarnedAboutOnce(String fixture, String warning) throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse(fixture);
        // validated again, as Dropwizard's server command and a test may both do: still one warning
        Validator validator = Validators.newValidator();
        assertThat(validator.validate(factory)).isEmpty();

        List<String> adjusted = adjustmentWarnings();
        assertThat(adjusted).filteredOn(message -> message.startsWith(warning)).hasSize(1);
        assertThat(adjusted).extracting(message -> message.substring(0, message.indexOf(' ')))
            .doesNotHaveDuplicates();

        HikariConfig config = factory.toHikariConfig(metrics, "adjusted");
        assertHikariChangesNothing(config);
        assertThat(adjustmentWarnings()).isEqualTo(adjusted);
        servesSelectOne(factory);
    }

    @Test
    void aShortLifetimeAdjustsTheTimersThatDefaultAboveIt() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("adjusted_lifetime_below_defaults.yml");

        assertThat(adjustmentWarnings()).containsExactlyInAnyOrder(
            "hikari.minIdleTime is 10 minutes; using 59 seconds instead: HikariCP needs it at least "
                + "1 second below maxConnectionAge (1 minute) and would otherwise never retire idle "
                + "connections",
            "hikari.keepaliveTime is 2 minutes (default); using 0 seconds instead: HikariCP tests idle "
                + "connections only more often than maxConnectionAge (1 minute), which replaces them anyway");
        HikariConfig config = factory.toHikariConfig(metrics, "short-lifetime");
        assertThat(config.getIdleTimeout()).isEqualTo(Duration.seconds(59).toMilliseconds());
        assertThat(config.getKeepaliveTime()).isZero();
        // the values used live in the resolved configuration; the settings stay as given
        assertThat(factory.getMinIdleTime()).isEqualTo(Duration.minutes(10));
        assertThat(factory.getKeepaliveTime()).isEqualTo(Duration.minutes(2));
        assertHikariChangesNothing(config);
        servesSelectOne(factory);
    }

    @Test
    void dropwizardsDocumentedBlockStarts() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("dropwizard_documented.yml");

        assertThat(adjustmentWarnings()).containsExactly("hikari.validationQueryTimeout is 3 seconds; using 1 second "
            + "instead: a connection test must fit in maxWaitForConnection (1 second), or a borrow could wait "
            + "longer than that");
        // the setting stays as given, as in Dropwizard; the pool runs the adjusted 1 s (asserted below)
        assertThat(factory.getValidationQueryTimeout()).contains(Duration.seconds(3));
        assertThat(factory.getMinSize()).isEqualTo(8);
        assertThat(factory.getMaxSize()).isEqualTo(32);
        HikariConfig config = factory.toHikariConfig(metrics, "documented");
        assertThat(config.getValidationTimeout()).isEqualTo(1_000);
        assertThat(config.getValidationTimeout()).isEqualTo(1_000);
        assertHikariChangesNothing(config);
        servesSelectOne(factory);
    }

    @ParameterizedTest
    @ValueSource(strings = {"adjusted_lifetime_below_defaults.yml", "dropwizard_documented.yml",
        "adjusted_max_size_from_min_size.yml", "adjusted_connection_timeout_floor.yml"})
    void validatingChangesNoSettingAndGivesTheSameResultEveryTime(String fixture) throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse(fixture);
        String settings = factory.toString();
        HikariConfig first = factory.toHikariConfig(metrics, "first");
        Validator validator = Validators.newValidator();

        assertThat(validator.validate(factory)).isEmpty();
        assertThat(validator.validate(factory)).isEmpty();
        HikariConfig again = factory.toHikariConfig(metrics, "again");

        assertThat(factory.toString()).isEqualTo(settings);
        assertThat(again).usingRecursiveComparison().ignoringFields("poolName").isEqualTo(first);
        // every field, the Tomcat-only ones and what the block remembers included, against the same block parsed
        // once more and never validated again nor built
        assertThat(factory).usingRecursiveComparison().isEqualTo(FactoryFixtures.parse(fixture));
    }

    @Test
    void resolvingGivesTheConfigurationAndEveryWarningEachTimeWhileTheLogHasEachOnce() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("dropwizard_documented.yml");
        List<String> logged = adjustmentWarnings();

        ResolvedSettings first = factory.resolve(metrics, "resolved");
        ResolvedSettings second = factory.resolve(metrics, "resolved");

        assertThat(first.warnings()).filteredOn(message -> message.contains("; using "))
            .containsExactlyElementsOf(logged)
            .hasSize(1);
        assertThat(second.warnings()).isEqualTo(first.warnings());
        assertThat(adjustmentWarnings()).isEqualTo(logged);
        assertThat(first.config().getValidationTimeout()).isEqualTo(1_000);
        assertThat(second.config()).isNotSameAs(first.config())
            .usingRecursiveComparison().isEqualTo(first.config());
        assertThatThrownBy(() -> first.warnings().add("changed")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aValueSetInJavaAfterValidationIsAdjustedWhenThePoolIsBuilt() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("minimal.yml");
        factory.setMaxConnectionAge(Duration.seconds(10));

        HikariConfig config = factory.toHikariConfig(metrics, "java");

        assertThat(config.getMaxLifetime()).isEqualTo(30_000);
        assertThat(adjustmentWarnings()).anyMatch(message -> message.startsWith(
            "hikari.maxConnectionAge is 10 seconds; using 30 seconds instead"));
        assertHikariChangesNothing(config);
    }

    private List<String> adjustmentWarnings() {
        return appender.list.stream()
            .filter(event -> event.getLevel() == Level.WARN)
            .map(ILoggingEvent::getFormattedMessage)
            .filter(message -> message.contains("; using "))
            .collect(Collectors.toList());
    }

    private static void assertHikariChangesNothing(HikariConfig config) {
        HikariConfig validated = new HikariConfig();
        config.copyStateTo(validated);
        validated.validate();

        assertThat(validated.getConnectionTimeout()).isEqualTo(config.getConnectionTimeout());
        assertThat(validated.getValidationTimeout()).isEqualTo(config.getValidationTimeout());
        assertThat(validated.getIdleTimeout()).isEqualTo(config.getIdleTimeout());
        assertThat(validated.getMaxLifetime()).isEqualTo(config.getMaxLifetime());
        assertThat(validated.getKeepaliveTime()).isEqualTo(config.getKeepaliveTime());
        assertThat(validated.getLeakDetectionThreshold()).isEqualTo(config.getLeakDetectionThreshold());
        assertThat(validated.getMinimumIdle()).isEqualTo(config.getMinimumIdle());
        assertThat(validated.getMaximumPoolSize()).isEqualTo(config.getMaximumPoolSize());
    }

    private void servesSelectOne(HikariDataSourceFactory factory) throws Exception {
        var dataSource = factory.build(new MetricRegistry(), "adjusted-pool");
        try (Connection connection = dataSource.getConnection();
             ResultSet result = connection.createStatement().executeQuery("select 1")) {
            assertThat(result.next()).isTrue();
            assertThat(result.getInt(1)).isEqualTo(1);
        } finally {
            dataSource.stop();
        }
    }
}
