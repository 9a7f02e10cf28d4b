package io.github.dropwizardhikari;

import io.dropwizard.configuration.ConfigurationException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One fixture per rule: each is refused at validation with a message that names the field's full path. */
class InvalidConfigurationTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, invalid, adjusted and Tomcat-only settings."
            + " WARN and ERROR lines in this log are expected.");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "invalid_no_url.yml                          | hikari.url must be set (or dataSourceClassName instead)",
        "invalid_url_and_data_source.yml             | hikari.url must not be set together with dataSourceClassName",
        "invalid_driver_with_data_source.yml         | hikari.driverClass must not be set together with dataSourceClassName",
        "invalid_min_size_above_max.yml              | hikari.minSize must be less than or equal to maxSize",
        "invalid_initial_size_above_max.yml          | hikari.initialSize must be less than or equal to maxSize",
        "invalid_initial_size_below_min.yml          | hikari.initialSize must be greater than or equal to minSize",
        "invalid_max_size_zero.yml                   | hikari.maxSize must be greater than or equal to 1",
        "invalid_min_size_negative.yml               | hikari.minSize must be greater than or equal to 0",
        "invalid_timers_null.yml                     | hikari.maxWaitForConnection must not be null",
        "invalid_network_timeout_null.yml            | hikari.networkTimeout must not be null",
        "invalid_max_wait_zero.yml                   | hikari.maxWaitForConnection must be greater than 0 MILLISECONDS",
        "invalid_min_idle_time_zero.yml              | hikari.minIdleTime must be greater than 0 MILLISECONDS",
        "invalid_keepalive_floor.yml                 | hikari.keepaliveTime must be 0 (off) or at least 30 seconds",
        "invalid_keepalive_not_below_max_lifetime.yml | hikari.keepaliveTime must be less than maxConnectionAge",
        "invalid_leak_threshold_floor.yml            | hikari.leakDetectionThreshold must be 0 (off) or at least 2 seconds",
        "invalid_leak_threshold_not_below_max_lifetime.yml | hikari.leakDetectionThreshold must not be longer than maxConnectionAge",
        "invalid_two_names.yml                       | hikari.maxSize is given twice, as maxSize and as maximumPoolSize",
        "invalid_driver_not_found.yml                | hikari.driverClass cannot be loaded: class com.example.NoSuchDriver is not on the class path",
        "invalid_data_source_not_a_data_source.yml   | hikari.dataSourceClassName cannot be used: java.lang.String is not a javax.sql.DataSource",
        "invalid_exception_override_not_found.yml    | hikari.exceptionOverrideClassName cannot be loaded: class com.example.NoSuchOverride",
        "invalid_credentials_provider_not_found.yml  | hikari.credentialsProviderClassName cannot be loaded: class com.example.NoSuchProvider",
        "invalid_health_check_properties.yml         | hikari.healthCheckProperties accepts only connectivityCheckTimeoutMs and expected99thPercentileMs",
        "invalid_abandon_percentage.yml              | hikari.abandonWhenPercentageFull must be less than or equal to 100",
        "invalid_validation_interval.yml             | hikari.validationInterval must be greater than or equal to 50 MILLISECONDS",
        "invalid_unknown_field.yml                   | hikari.maxPoolSizee",
        "invalid_extension_unknown_field.yml         | Unrecognized field at: hikari.extensions.[0].metrc",
        "invalid_extension_module_missing.yml        | no module on the class path provides the extension 'fair-borrowing': add the dependency io.github.dropwizard-hikari:dropwizard-hikari-fair-borrowing",
        "invalid_transaction_isolation.yml           | hikari.defaultTransactionIsolation",
    })
    void isRefusedWithTheFieldNamed(String fixture, String message) {
        assertThatThrownBy(() -> FactoryFixtures.parse(fixture))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining(message);
    }
}
