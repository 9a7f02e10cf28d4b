package io.github.dropwizardhikari;

import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.configuration.ResourceConfigurationSourceProvider;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;

/** Parses the YAML fixtures under {@code yaml/} the way Dropwizard parses a configuration file. */
final class FactoryFixtures {
    // as an application's Bootstrap makes it: unknown keys fail, as they do at startup
    private static final ConfigurationFactory<HikariDataSourceFactory> FACTORY =
        new DefaultConfigurationFactoryFactory<HikariDataSourceFactory>().create(HikariDataSourceFactory.class,
            Validators.newValidator(), Jackson.newObjectMapper(), "dw");

    private FactoryFixtures() {
    }

    static HikariDataSourceFactory parse(String fixture) throws Exception {
        return FACTORY.build(new ResourceConfigurationSourceProvider(), "yaml/" + fixture);
    }
}
