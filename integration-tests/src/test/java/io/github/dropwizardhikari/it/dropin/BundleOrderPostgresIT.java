package io.github.dropwizardhikari.it.dropin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** A pool built by a bundle added before {@code HikariBundle} still gets HikariCP's health checks. */
@ExtendWith(DropwizardExtensionsSupport.class)
class BundleOrderPostgresIT {
    private static final TestDatabase SERVER = TestDatabases.postgres();
    private static final TestDatabase DATABASE = SERVER.isolated("it_bundle_order_" + ProcessHandle.current().pid());

    private static final DropwizardAppExtension<DropInApp.Config> APP = new DropwizardAppExtension<>(
        HibernateFirstApp.class, config(),
        ConfigOverride.config("hikari.url", DATABASE.url()),
        ConfigOverride.config("hikari.user", SERVER.user()),
        ConfigOverride.config("hikari.password", SERVER.password()));

    @Test
    void hibernatesPoolHasHikariHealthChecksAlthoughItsBundleRanFirst() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + APP.getAdminPort() + "/healthcheck")).build(),
            HttpResponse.BodyHandlers.ofString());
        JsonNode health = new ObjectMapper().readTree(response.body());

        assertThat(health.has("hibernate.pool.ConnectivityCheck")).as(response.body()).isTrue();
        assertThat(health.get("hibernate.pool.ConnectivityCheck").get("healthy").asBoolean()).isTrue();
        assertThat(health.get("hibernate").get("healthy").asBoolean()).isTrue();
        assertThat(APP.getEnvironment().healthChecks().getNames()).contains("hibernate.pool.ConnectivityCheck");
    }

    private static String config() {
        try {
            Path file = Files.createTempFile("bundle-order", ".yml");
            file.toFile().deleteOnExit();
            Files.writeString(file, "hikari:\n  url: jdbc:postgresql://placeholder/db\n  maxSize: 2\n"
                + "server:\n  applicationConnectors:\n    - type: http\n      port: 0\n"
                + "  adminConnectors:\n    - type: http\n      port: 0\n  requestLog:\n    appenders: []\n"
                + "logging:\n  level: WARN\n");
            return file.toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
