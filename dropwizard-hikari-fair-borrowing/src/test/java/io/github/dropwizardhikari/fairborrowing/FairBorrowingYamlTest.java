package io.github.dropwizardhikari.fairborrowing;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ResourceConfigurationSourceProvider;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.PoolHooks;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The extension named in a pool's YAML block, found through its module's service file as Dropwizard finds types. */
class FairBorrowingYamlTest {
    private final YamlConfigurationFactory<HikariDataSourceFactory> yaml = new YamlConfigurationFactory<>(
        HikariDataSourceFactory.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");

    private HikariDataSourceFactory parse(String fixture) throws Exception {
        return yaml.build(new ResourceConfigurationSourceProvider(), "yaml/" + fixture);
    }

    @Test
    void theTypeNamedInTheBlockIsTheExtensionAndItsGateServesThePool() throws Exception {
        HikariDataSourceFactory factory = parse("fair_borrowing.yml");

        assertThat(factory.getExtensions()).singleElement().isInstanceOf(FairBorrowing.class)
            .hasToString("fair-borrowing");
        MetricRegistry metrics = new MetricRegistry();
        ManagedHikariDataSource dataSource = (ManagedHikariDataSource) factory.build(metrics, "yaml-fair");
        try (Connection connection = dataSource.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
            assertThat(metrics.getNames()).contains("yaml-fair.pool.GateWait", "yaml-fair.pool.GateWaiting");
        } finally {
            dataSource.stop();
        }
    }

    @Test
    void aMisspeltTypeIsToldTheTypeOnTheClassPathNotAModuleThatDoesNotExist() {
        assertThatThrownBy(() -> parse("invalid_misspelt_type.yml"))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining("unknown extension type 'fair-borowing': did you mean 'fair-borrowing'? The known "
                + "types, closest first: fair-borrowing, ")
            .hasMessageContaining("; on the class path: fair-borrowing")
            .hasMessageNotContaining("dropwizard-hikari-fair-borowing");
    }

    /** A stand-in named as fault-handling's entry is: this module does not depend on that one. */
    @JsonTypeName("fault-handling")
    static final class FaultHandlingStandIn implements PoolExtension {
        @Override
        public PoolHooks attach(HikariConfig config, MetricRegistry metrics) {
            return PoolHooks.NONE;
        }
    }

    @Test
    void checkWarnsWhenTheGateIsListedBeforeFaultHandlingAndSaysWhy() {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:placed");
        factory.setExtensions(List.of(new FairBorrowing(), new FaultHandlingStandIn()));
        assertThat(factory.resolve(new MetricRegistry(), "placed").warnings()).singleElement().isEqualTo(
            "extensions: fair-borrowing is listed before fault-handling, so during an outage a borrower first queues "
                + "at the gate, up to maxWaitForConnection, before fault-handling fails it at once; list "
                + "fault-handling first");

        factory.setExtensions(List.of(new FaultHandlingStandIn(), new FairBorrowing()));
        assertThat(factory.resolve(new MetricRegistry(), "placed").warnings()).isEmpty();
        factory.setExtensions(List.of(new FairBorrowing()));
        assertThat(factory.resolve(new MetricRegistry(), "placed").warnings()).isEmpty();
    }
}
