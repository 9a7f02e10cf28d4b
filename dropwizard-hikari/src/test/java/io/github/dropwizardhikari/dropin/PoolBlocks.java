package io.github.dropwizardhikari.dropin;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Parses a pool block the way an application parses its configuration file: Dropwizard's
 * {@link YamlConfigurationFactory} with its own object mapper and validator, under {@code database:} into
 * Dropwizard's factory and under {@code hikari:} into ours, so that error messages and warnings carry the full
 * path.
 */
final class PoolBlocks {
    /** An application configuration with Dropwizard's factory. */
    static final class DatabaseConfiguration {
        @Valid
        @NotNull
        @JsonProperty
        DataSourceFactory database;
    }

    /** The same application after the rename. */
    static final class HikariConfiguration {
        @Valid
        @NotNull
        @JsonProperty
        HikariDataSourceFactory hikari;
    }

    private static final YamlConfigurationFactory<DatabaseConfiguration> DATABASE = new YamlConfigurationFactory<>(
        DatabaseConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");
    private static final YamlConfigurationFactory<HikariConfiguration> HIKARI = new YamlConfigurationFactory<>(
        HikariConfiguration.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");

    private PoolBlocks() {
    }

    static DataSourceFactory database(String yaml) throws IOException, ConfigurationException {
        return DATABASE.build(path -> stream(yaml), "database.yml").database;
    }

    static HikariDataSourceFactory hikari(String yaml) throws IOException, ConfigurationException {
        return HIKARI.build(path -> stream(yaml), "hikari.yml").hikari;
    }

    private static ByteArrayInputStream stream(String yaml) {
        return new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8));
    }
}
