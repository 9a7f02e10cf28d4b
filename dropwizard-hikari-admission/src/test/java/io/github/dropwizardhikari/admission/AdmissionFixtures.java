package io.github.dropwizardhikari.admission;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.configuration.ResourceConfigurationSourceProvider;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

/**
 * Parses the YAML fixtures under {@code yaml/} the way Dropwizard parses a configuration file: each holds a
 * {@code hikari:} block, so messages name {@code hikari.<field>}.
 */
final class AdmissionFixtures {
    static final class HikariConfiguration {
        @Valid
        @NotNull
        @JsonProperty
        HikariDataSourceFactory hikari;
    }

    // as an application's Bootstrap makes it: unknown keys fail, as they do at startup
    private static final ConfigurationFactory<HikariConfiguration> FACTORY =
        new DefaultConfigurationFactoryFactory<HikariConfiguration>().create(HikariConfiguration.class,
            Validators.newValidator(), Jackson.newObjectMapper(), "dw");

    private AdmissionFixtures() {
    }

    static HikariDataSourceFactory parse(String fixture) throws Exception {
        return FACTORY.build(new ResourceConfigurationSourceProvider(), "yaml/" + fixture).hikari;
    }

    static AdmissionExtension admission(HikariDataSourceFactory factory) {
        return (AdmissionExtension) factory.getExtensions().get(0);
    }
}
