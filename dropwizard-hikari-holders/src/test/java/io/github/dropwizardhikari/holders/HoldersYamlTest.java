package io.github.dropwizardhikari.holders;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.configuration.ResourceConfigurationSourceProvider;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class HoldersYamlTest {
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

    @Test
    void theTypeIsFoundAndEveryDefaultHolds() throws Exception {
        HoldersExtension holders = holders("holders_minimal.yml");
        assertThat(holders.getLogInterval()).isEqualTo(Duration.minutes(1));
        assertThat(holders.getSummaryLines()).isEqualTo(5);
        assertThat(holders.isStackAtBorrow()).isFalse();
        assertThat(holders).hasToString("holders");
    }

    @Test
    void everySettingIsRead() throws Exception {
        HoldersExtension holders = holders("holders_full.yml");
        assertThat(holders.getLogInterval()).isEqualTo(Duration.seconds(10));
        assertThat(holders.getSummaryLines()).isEqualTo(3);
        assertThat(holders.isStackAtBorrow()).isTrue();
    }

    @Test
    void outOfRangeSettingsAreNamed() {
        assertThatThrownBy(() -> holders("invalid_holders.yml"))
            .isInstanceOf(ConfigurationValidationException.class)
            .hasMessageContaining("hikari.extensions[0].logInterval")
            .hasMessageContaining("hikari.extensions[0].summaryLines");
    }

    private static HoldersExtension holders(String fixture) throws Exception {
        return (HoldersExtension) FACTORY.build(new ResourceConfigurationSourceProvider(), "yaml/" + fixture).hikari
            .getExtensions().get(0);
    }
}
