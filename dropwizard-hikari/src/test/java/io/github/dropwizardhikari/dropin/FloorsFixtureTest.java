package io.github.dropwizardhikari.dropin;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.db.ManagedDataSource;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A block with every value HikariCP checks at its floor ({@code yaml/full_floors.yml}): the bundle passes each
 * one on unchanged, without a warning, and HikariCP's own {@code validate()} changes none of them.
 */
class FloorsFixtureTest {

    @Test
    void hikariUsesEveryValueAtItsFloorAsWritten() throws Exception {
        HikariDataSourceFactory factory;
        try (CapturedWarnings warnings = new CapturedWarnings()) {
            factory = PoolBlocks.hikari(fixture());
            assertThat(warnings.messages()).as("nothing adjusted, nothing to warn about").isEmpty();
        }
        HikariConfig config = factory.toHikariConfig(new MetricRegistry(), "floors");

        assertThat(config.getMinimumIdle()).isZero();
        assertThat(config.getMaximumPoolSize()).isEqualTo(1);
        assertThat(config.getConnectionTimeout()).isEqualTo(250);
        assertThat(config.getValidationTimeout()).isEqualTo(250);
        assertThat(config.getIdleTimeout()).isEqualTo(10_000);
        assertThat(config.getMaxLifetime()).isEqualTo(31_000);
        assertThat(config.getKeepaliveTime()).isEqualTo(30_000);
        assertThat(config.getLeakDetectionThreshold()).isEqualTo(2_000);
        assertThat(AdjustableValues.afterValidation(config)).isEqualTo(AdjustableValues.of(config));
    }

    @Test
    void thePoolAtTheFloorsServesQueries() throws Exception {
        HikariDataSourceFactory factory = PoolBlocks.hikari(fixture());
        ManagedDataSource dataSource = factory.build(new MetricRegistry(), "floors");
        try {
            dataSource.start();
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                 ResultSet result = statement.executeQuery("SELECT 1")) {
                assertThat(result.next()).isTrue();
                assertThat(result.getInt(1)).isEqualTo(1);
            }
        } finally {
            dataSource.stop();
        }
    }

    private static String fixture() throws Exception {
        try (var in = FloorsFixtureTest.class.getResourceAsStream("/yaml/full_floors.yml")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
