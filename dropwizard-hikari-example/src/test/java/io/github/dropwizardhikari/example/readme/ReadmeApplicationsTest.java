package io.github.dropwizardhikari.example.readme;

import com.codahale.metrics.health.HealthCheck;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.dropwizard.util.JarLocation;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.ByteArrayOutputStream;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's applications do what the README says: the pool of each client gets the name the README gives it,
 * with HikariCP's metrics and health checks beside the client's own check, and the pool tasks of the operations
 * extension that readme-app.yml names; the YAML key stays
 * {@code database:}, so {@code ConfigOverride.config("database.url", ...)} reaches it; {@code db migrate} runs.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class ReadmeApplicationsTest {
    private static final String CONFIG = ResourceHelpers.resourceFilePath("readme-app.yml");

    static final DropwizardAppExtension<AppConfiguration> JDBI = new DropwizardAppExtension<>(JdbiApplication.class,
        CONFIG, ConfigOverride.config("database.url", "jdbc:h2:mem:readme_jdbi"));
    static final DropwizardAppExtension<AppConfiguration> HIBERNATE = new DropwizardAppExtension<>(
        HibernateApplication.class, CONFIG, ConfigOverride.config("database.url", "jdbc:h2:mem:readme_hibernate"));

    @Test
    void jdbisPoolIsNamedByTheApplication() {
        Environment environment = JDBI.getEnvironment();

        assertThat(JDBI.getConfiguration().getDataSourceFactory().getUrl()).isEqualTo("jdbc:h2:mem:readme_jdbi");
        assertThat(environment.metrics().getNames()).contains("db.pool.Wait", "db.pool.ActiveConnections");
        assertThat(environment.healthChecks().getNames()).contains("db", "db.pool.ConnectivityCheck");
        assertThat(environment.healthChecks().runHealthCheck("db.pool.ConnectivityCheck").isHealthy()).isTrue();
        Response status = JDBI.client().target("http://localhost:" + JDBI.getAdminPort() + "/tasks/pool-status")
            .request().post(Entity.text(""));
        assertThat(status.getStatus()).isEqualTo(200);
        assertThat(status.readEntity(String.class)).contains("db");
    }

    @Test
    void hibernatesPoolIsNamedByItsBundle() {
        Environment environment = HIBERNATE.getEnvironment();

        assertThat(environment.metrics().getNames()).contains("hibernate.pool.Wait");
        assertThat(environment.healthChecks().getNames()).contains("hibernate", "hibernate.pool.ConnectivityCheck");
        HealthCheck.Result hibernate = environment.healthChecks().runHealthCheck("hibernate");
        assertThat(hibernate.isHealthy()).as("%s", hibernate).isTrue();
        HealthCheck.Result pool = environment.healthChecks().runHealthCheck("hibernate.pool.ConnectivityCheck");
        assertThat(pool.isHealthy()).as("%s", pool).isTrue();
    }

    @Test
    void dbMigrateRunsOnThePool() throws Exception {
        String url = "jdbc:h2:mem:readme_migrate;DB_CLOSE_DELAY=-1";
        System.setProperty("dw.database.url", url);
        try (Connection keepsTheDatabase = DriverManager.getConnection(url, "sa", "")) {
            JdbiApplication application = new JdbiApplication();
            Bootstrap<AppConfiguration> bootstrap = new Bootstrap<>(application);
            application.initialize(bootstrap);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Optional<Throwable> failure = new Cli(new JarLocation(getClass()), bootstrap, out, out)
                .run("db", "migrate", CONFIG);

            assertThat(failure).as("db migrate: %s", out).isEmpty();
            try (ResultSet tables = keepsTheDatabase.getMetaData().getTables(null, null, "QUESTIONS", null)) {
                assertThat(tables.next()).as("the table migrations.xml creates").isTrue();
            }
        } finally {
            System.clearProperty("dw.database.url");
        }
    }
}
