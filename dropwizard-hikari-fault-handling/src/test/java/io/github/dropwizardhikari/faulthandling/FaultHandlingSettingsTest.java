package io.github.dropwizardhikari.faulthandling;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.configuration.ResourceConfigurationSourceProvider;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The extension named in YAML, parsed and validated as Dropwizard does at startup. */
class FaultHandlingSettingsTest {
    static final class HikariConfiguration {
        @Valid
        @NotNull
        @JsonProperty
        HikariDataSourceFactory hikari;
    }

    private static final ConfigurationFactory<HikariConfiguration> FACTORY =
        new DefaultConfigurationFactoryFactory<HikariConfiguration>().create(HikariConfiguration.class,
            Validators.newValidator(), Jackson.newObjectMapper(), "dw");

    private static FaultHandlingExtension parse(String fixture) throws Exception {
        HikariDataSourceFactory factory = FACTORY.build(new ResourceConfigurationSourceProvider(),
            "yaml/" + fixture).hikari;
        assertThat(factory.getExtensions()).hasSize(1).first().isInstanceOf(FaultHandlingExtension.class);
        return (FaultHandlingExtension) factory.getExtensions().get(0);
    }

    @Test
    void minimal() throws Exception {
        FaultHandlingExtension extension = parse("minimal_fault_handling.yml");
        assertThat(extension.getEvictOn()).isEmpty();
        assertThat(extension.getRecoveryProbeInterval()).isEqualTo(Duration.milliseconds(250));
        assertThat(extension.isFailoverEviction()).isFalse();
        assertThat(extension.getSessionCheckInterval()).isEqualTo(Duration.seconds(1));
        assertThat(extension.getSilenceLimit()).isEqualTo(Duration.seconds(5));
    }

    @Test
    void full() throws Exception {
        FaultHandlingExtension extension = parse("full_fault_handling.yml");
        assertThat(extension.getEvictOn()).containsExactly("08S01", "2013");
        assertThat(extension.getRecoveryProbeInterval()).isEqualTo(Duration.milliseconds(0));
        assertThat(extension.isFailoverEviction()).isTrue();
        assertThat(extension.getSessionCheckInterval()).isEqualTo(Duration.milliseconds(250));
        assertThat(extension.getSilenceLimit()).isEqualTo(Duration.seconds(3));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "invalid_evict_on.yml                | hikari.extensions[0].evictOn accepts five-character SQLStates (08S01) and whole-number vendor error codes (2013), not 'connection reset'",
        "invalid_evict_on_template.yml       | hikari.extensions[0].evictOn accepts five-character SQLStates (08S01) and whole-number vendor error codes (2013), not '${user}{x}\\'",
        "invalid_recovery_probe_interval.yml | hikari.extensions[0].recoveryProbeInterval must be 0 (off) or at least 10 milliseconds",
        "invalid_session_check_interval.yml  | hikari.extensions[0].sessionCheckInterval must be 0 (off) or at least 100 milliseconds",
        "invalid_silence_limit.yml           | hikari.extensions[0].silenceLimit must be at least 1000 milliseconds",
    })
    void isRefusedWithTheFieldNamed(String fixture, String message) {
        assertThatThrownBy(() -> parse(fixture))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining(message);
    }
}
