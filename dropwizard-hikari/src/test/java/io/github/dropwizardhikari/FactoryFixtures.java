package io.github.dropwizardhikari;

import io.dropwizard.configuration.ResourceConfigurationSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;

/** Parses the YAML fixtures under {@code yaml/} the way Dropwizard parses a configuration file. */
final class FactoryFixtures {
    private static final YamlConfigurationFactory<HikariDataSourceFactory> FACTORY =
        new YamlConfigurationFactory<>(HikariDataSourceFactory.class, Validators.newValidator(),
            Jackson.newObjectMapper(), "dw");

    private FactoryFixtures() {
    }

    static HikariDataSourceFactory parse(String fixture) throws Exception {
        return FACTORY.build(new ResourceConfigurationSourceProvider(), "yaml/" + fixture);
    }
}
