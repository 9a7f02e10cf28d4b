package io.github.dropwizardhikari.example;

import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.ResourceConfigurationSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import java.io.File;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QuestionsConfigurationTest {
    private final YamlConfigurationFactory<QuestionsConfiguration> factory = new YamlConfigurationFactory<>(
        QuestionsConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");

    @ParameterizedTest
    @ValueSource(strings = {"invalid-no-pool.yml", "invalid-both-pools.yml"})
    void exactlyOnePoolMustBeConfigured(String file) {
        assertThatThrownBy(() -> factory.build(new ResourceConfigurationSourceProvider(), file))
            .isInstanceOf(ConfigurationValidationException.class)
            .hasMessageContaining("exactly one of hikari (HikariCP) and database (Tomcat) must be configured");
    }

    @Test
    void theShippedConfigurationsParse() throws Exception {
        // the files next to the pom, as the README runs them; environment placeholders keep their defaults
        for (String file : new String[] {"example.yml", "example-postgres.yml", "example-tomcat.yml",
            "example-tomcat-safe.yml"}) {
            String yaml = new String(java.nio.file.Files.readAllBytes(new File(file).toPath()))
                .replaceAll("\\$\\{[A-Z_]+:-([^}]*)}", "$1");
            java.nio.file.Path copy = java.nio.file.Files.createTempFile("config", ".yml");
            java.nio.file.Files.writeString(copy, yaml);
            QuestionsConfiguration configuration = factory.build(copy.toFile());
            assertThat(configuration.getDataSourceFactory()).as(file).isNotNull();
            if (file.equals("example.yml") || file.equals("example-postgres.yml")) {
                assertThat(configuration.getDataSourceFactory()).isInstanceOf(HikariDataSourceFactory.class);
            }
            java.nio.file.Files.delete(copy);
        }
    }
}
