package io.github.dropwizardhikari.credentialfiles;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.configuration.ResourceConfigurationSourceProvider;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The extension named in a {@code hikari:} block, as Dropwizard parses and validates it and as its pools start. */
class CredentialsConfigurationTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, connections that would outlive their credentials."
            + " WARN and ERROR lines in this log are expected.");
    }

    static final class HikariConfiguration {
        @Valid
        @NotNull
        @JsonProperty
        HikariDataSourceFactory hikari;
    }

    // as an application's Bootstrap makes it: unknown keys fail, as they do at startup
    private static final ConfigurationFactory<HikariConfiguration> YAML =
        new DefaultConfigurationFactoryFactory<HikariConfiguration>().create(HikariConfiguration.class,
            Validators.newValidator(), Jackson.newObjectMapper(), "dw");

    private final MetricRegistry metrics = new MetricRegistry();

    private static HikariDataSourceFactory parse(String fixture) throws Exception {
        return YAML.build(new ResourceConfigurationSourceProvider(), "yaml/" + fixture).hikari;
    }

    /** @return the warnings about credentials logged while the fixture's pools start, twice, and stop */
    private List<String> warningsWhileStarting(String fixture) throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(CredentialFilesExtension.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            HikariDataSourceFactory factory = parse(fixture);
            for (String name : List.of("first", "second")) {
                ManagedHikariDataSource pool = (ManagedHikariDataSource) factory.build(metrics, name);
                pool.start();
                pool.stop();
            }
        } finally {
            logger.detachAppender(appender);
        }
        return appender.list.stream().map(ILoggingEvent::getFormattedMessage)
            .filter(message -> message.contains("credentials")).toList();
    }

    @Test
    void aLifetimeShorterThanMaxConnectionAgeIsWarnedAboutOnceWhenAPoolStarts() throws Exception {
        assertThat(warningsWhileStarting("credentials_short_lifetime.yml")).containsExactly(
            "pool first: maxConnectionAge (30 minutes) is longer than credential-files.lifetime (15 minutes): "
                + "connections may outlive the credentials they were opened with, and fail when the database "
                + "revokes them. Set maxConnectionAge below the lifetime (leave time for the file to be renewed).");
    }

    @Test
    void aLifetimeLongerThanMaxConnectionAgeIsQuiet() throws Exception {
        assertThat(warningsWhileStarting("credentials.yml")).isEmpty();
    }

    @Test
    void credentialsFromFilesBecomeHikarisCredentialsProvider() throws Exception {
        HikariDataSourceFactory factory = parse("credentials.yml");
        HikariConfig config = factory.toHikariConfig(metrics, "credentials");

        assertThat(factory.getExtensions()).singleElement().isInstanceOfSatisfying(CredentialFilesExtension.class,
            credentials -> {
                assertThat(credentials.getPasswordFile()).contains("src/test/resources/secrets/password");
                assertThat(credentials.getUserFile()).isEmpty();
                assertThat(credentials.getLifetime()).contains(Duration.minutes(15));
                credentials.attach(config, metrics);
            });
        assertThat(config.getCredentialsProvider()).isInstanceOf(FileCredentialsProvider.class);
        assertThat(config.getCredentialsProvider().getCredentials().getUsername()).isEqualTo("app");
        assertThat(config.getCredentialsProvider().getCredentials().getPassword()).isEqualTo("fixture-password");
        assertThat(factory.toString()).doesNotContain("fixture-password");
    }

    @Test
    void aStartedPoolConnectsWithTheFilesCredentials() throws Exception {
        ManagedHikariDataSource pool = (ManagedHikariDataSource) parse("credentials.yml").build(metrics, "files");
        try (Connection connection = pool.getConnection()) {
            assertThat(connection.getMetaData().getUserName()).isEqualToIgnoringCase("app");
        } finally {
            pool.stop();
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "invalid_credentials_unreadable_file.yml | hikari.extensions[0].passwordFile must name a readable file: /nonexistent/dropwizard-hikari/password does not exist",
        "invalid_credentials_no_file.yml         | needs userFile, passwordFile or both",
    })
    void isRefusedAtCheckWithTheFieldNamed(String fixture, String message) {
        assertThatThrownBy(() -> parse(fixture))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining(message);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "invalid_credentials_with_password.yml       | pool conflict: password must not be set together with credential-files.passwordFile",
        "invalid_credentials_with_user.yml           | pool conflict: user must not be set together with credential-files.userFile",
        "invalid_credentials_with_provider_class.yml | pool conflict: credential-files must not be named together with credentialsProviderClassName",
    })
    void isRefusedAtStartWithTheSettingNamed(String fixture, String message) throws Exception {
        ManagedHikariDataSource pool = (ManagedHikariDataSource) parse(fixture).build(metrics, "conflict");

        assertThatThrownBy(pool::start).isInstanceOf(IllegalStateException.class).hasMessageContaining(message);
        assertThat(pool.isRunning()).isFalse();
        assertThat(metrics.getNames()).as("a refused start leaves no metric behind").isEmpty();
    }

    @Test
    void theSettingsHaveATableWithTheirDefaults() throws Exception {
        Map<String, String> documented = new LinkedHashMap<>();
        for (String row : Files.readAllLines(Path.of("..", "docs", "operations.md"))) {
            if (row.startsWith("| `" + CredentialFilesExtension.TYPE + ".")) {
                String[] cells = row.substring(1).split("\\|");
                documented.put(plain(cells[0]).substring(CredentialFilesExtension.TYPE.length() + 1),
                    plain(cells[1]));
            }
        }
        ObjectMapper mapper = Jackson.newObjectMapper();
        BeanDescription description = mapper.getDeserializationConfig()
            .introspect(mapper.constructType(CredentialFilesExtension.class));

        assertThat(documented.keySet()).as("the properties of credential-files").containsExactlyInAnyOrderElementsOf(
            description.findProperties().stream().filter(p -> p.hasSetter() || p.hasField())
                .map(BeanPropertyDefinition::getName).toList());
        CredentialFilesExtension empty = new CredentialFilesExtension();
        for (Map.Entry<String, String> row : documented.entrySet()) {
            String getter = "get" + Character.toUpperCase(row.getKey().charAt(0)) + row.getKey().substring(1);
            Optional<?> value = (Optional<?>) CredentialFilesExtension.class.getMethod(getter).invoke(empty);
            // "none: `user`": the value comes first, then where the setting comes from instead
            assertThat(value.map(Object::toString).orElse("none"))
                .as("default of credential-files.%s", row.getKey()).isEqualTo(row.getValue().split(":")[0].trim());
        }
    }

    private static String plain(String cell) {
        return cell.replace("`", "").replaceAll("\\s+", " ").trim();
    }
}
