package io.github.dropwizardhikari.faulthandling;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.configuration.FileConfigurationSourceProvider;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * On a real pool named in YAML with {@code failoverEviction: true}: one session's death ({@code ABORT_SESSION}, H2's 90121) evicts its own connection
 * and leaves the pool's other connections alone: it is not a failover.
 */
class FailoverDeadSessionTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, a session that dies under a borrowed connection."
            + " WARN and ERROR lines in this log are expected.");
    }

    private static int sessionId(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT SESSION_ID()")) {
            result.next();
            return result.getInt(1);
        }
    }

    @Test
    void oneSessionsDeathIsNotAFailover(@TempDir Path dir) throws Exception {
        Path yaml = dir.resolve("pool.yml");
        Files.writeString(yaml, """
            url: jdbc:h2:mem:one-death;DB_CLOSE_DELAY=-1
            minSize: 2
            maxSize: 2
            extensions:
              - type: fault-handling
                failoverEviction: true
            """);
        ConfigurationFactory<HikariDataSourceFactory> parser = new DefaultConfigurationFactoryFactory<
            HikariDataSourceFactory>().create(HikariDataSourceFactory.class, Validators.newValidator(),
            Jackson.newObjectMapper(), "dw");
        HikariDataSourceFactory factory = parser.build(new FileConfigurationSourceProvider(), yaml.toString());
        assertThat(factory.getExtensions()).singleElement().isInstanceOfSatisfying(FaultHandlingExtension.class,
            extension -> assertThat(extension.isFailoverEviction()).isTrue());
        ManagedHikariDataSource pool = (ManagedHikariDataSource) factory.build(new MetricRegistry(), "one-death");
        try (Connection dying = pool.getConnection(); Connection survivor = pool.getConnection()) {
            int survivorSession = sessionId(survivor);
            try (Connection admin = DriverManager.getConnection("jdbc:h2:mem:one-death");
                 Statement statement = admin.createStatement()) {
                statement.execute("CALL ABORT_SESSION(" + sessionId(dying) + ")");
            }
            assertThatThrownBy(() -> sessionId(dying)).isInstanceOf(SQLException.class);
            // the survivor is still the same session, and is not marked for eviction on its return
            assertThat(sessionId(survivor)).isEqualTo(survivorSession);
            survivor.close();
            try (Connection again = pool.getConnection()) {
                assertThat(sessionId(again)).isEqualTo(survivorSession);
            }
            assertThat(pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().getTotalConnections())
                .isLessThanOrEqualTo(2);
        } finally {
            pool.stop();
        }
    }
}
