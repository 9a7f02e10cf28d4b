package io.github.dropwizardhikari;

import io.dropwizard.configuration.ConfigurationException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** One fixture per rule: each is refused at startup with a message that names the field. */
class InvalidConfigurationTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "invalid_no_url.yml                                    | exactly one of url (jdbcUrl) and dataSourceClassName must be set",
        "invalid_url_and_data_source.yml                       | exactly one of url (jdbcUrl) and dataSourceClassName must be set",
        "invalid_driver_with_data_source.yml                   | driverClass must not be set together with dataSourceClassName",
        "invalid_min_size_above_max.yml                        | minSize must be less than or equal to maxSize",
        "invalid_max_size_zero.yml                             | maxSize must be greater than or equal to 1",
        "invalid_min_size_negative.yml                         | minSize must be greater than or equal to 0",
        "invalid_connection_timeout_floor.yml                  | maxWaitForConnection must be greater than or equal to 250 MILLISECONDS",
        "invalid_validation_timeout_floor.yml                  | validationQueryTimeout must be greater than or equal to 250 MILLISECONDS",
        "invalid_validation_timeout_above_connection_timeout.yml | validationQueryTimeout must not be longer than maxWaitForConnection",
        "invalid_idle_timeout_floor.yml                        | minIdleTime must be 0 (never retire idle connections) or at least 10 seconds",
        "invalid_idle_timeout_near_max_lifetime.yml            | minIdleTime must be at least 1 second less than maxConnectionAge",
        "invalid_max_lifetime_floor.yml                        | maxConnectionAge must be 0 (no limit) or at least 30 seconds",
        "invalid_keepalive_floor.yml                           | keepaliveTime must be 0 (off) or at least 30 seconds",
        "invalid_keepalive_not_below_max_lifetime.yml          | keepaliveTime must be less than maxConnectionAge",
        "invalid_leak_threshold_floor.yml                      | leakDetectionThreshold must be 0 (off) or at least 2 seconds",
        "invalid_leak_threshold_not_below_max_lifetime.yml     | leakDetectionThreshold must be less than maxConnectionAge",
        "invalid_health_check_properties.yml                   | healthCheckProperties accepts only connectivityCheckTimeoutMs and expected99thPercentileMs",
        "invalid_unknown_field.yml                             | maxPoolSizee",
        "invalid_transaction_isolation.yml                     | defaultTransactionIsolation",
        "invalid_admission_limit.yml                           | admission.maxConcurrentRequests must be greater than or equal to 1",
        "invalid_admission_paths.yml                           | admission.paths must not be empty",
    })
    void isRefusedWithTheFieldNamed(String fixture, String message) {
        assertThatThrownBy(() -> FactoryFixtures.parse(fixture))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining(message);
    }
}
