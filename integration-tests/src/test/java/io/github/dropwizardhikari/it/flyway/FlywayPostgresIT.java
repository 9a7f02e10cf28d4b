package io.github.dropwizardhikari.it.flyway;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Flyway on a {@code hikari:} pool, on PostgreSQL. No Flyway bundle for Dropwizard 5 is published, so this uses
 * Flyway's own API the way such a bundle does: it builds the pool from the factory under the name
 * {@code Flyway}, migrates through it without starting it first, and leaves it to the caller to stop.
 */
class FlywayPostgresIT {
    @Test
    void flywayMigratesThroughTheHikariPoolWhichStaysUsableAndCloses() throws Exception {
        TestDatabase database = TestDatabases.postgres().isolated("it_flyway");
        String schema = database.namespace();
        HikariDataSourceFactory factory = hikariBlock(database);
        MetricRegistry metrics = new MetricRegistry();
        ManagedDataSource dataSource = factory.build(metrics, "Flyway");
        try {
            MigrateResult result = Flyway.configure().dataSource(dataSource).schemas(schema)
                .locations("classpath:db/flyway").load().migrate();

            assertThat(result.success).isTrue();
            assertThat(result.migrationsExecuted).isEqualTo(2);
            assertThat(result.targetSchemaVersion).isEqualTo("2");
            assertThat(scalar(dataSource, "SELECT text FROM greetings")).isEqualTo("migrated through HikariCP");
            assertThat(scalar(dataSource, "SELECT COUNT(*) FROM flyway_schema_history WHERE success"))
                .isEqualTo("2");
            assertThat(Flyway.configure().dataSource(dataSource).schemas(schema).locations("classpath:db/flyway")
                .load().migrate().migrationsExecuted).as("a second run finds nothing to do").isZero();
            assertThat(metrics.getGauges()).containsKey("Flyway.pool.ActiveConnections");
            assertThat(metrics.getGauges().get("Flyway.pool.ActiveConnections").getValue())
                .as("Flyway returned every connection it borrowed").isEqualTo(0);
        } finally {
            dataSource.stop();
        }
        assertThatThrownBy(dataSource::getConnection).as("the stopped pool lends nothing")
            .isInstanceOf(SQLException.class);
    }

    private static HikariDataSourceFactory hikariBlock(TestDatabase database) throws Exception {
        String yaml = "url: \"" + database.url() + "\"\nuser: " + database.user() + "\npassword: \""
            + database.password() + "\"\nmaxSize: 2\n";
        return new YamlConfigurationFactory<>(HikariDataSourceFactory.class, Validators.newValidator(),
            Jackson.newObjectMapper(), "dw")
            .build(path -> new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "flyway.yml");
    }

    private static String scalar(ManagedDataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery(sql)) {
            assertThat(result.next()).isTrue();
            return result.getString(1);
        }
    }
}
