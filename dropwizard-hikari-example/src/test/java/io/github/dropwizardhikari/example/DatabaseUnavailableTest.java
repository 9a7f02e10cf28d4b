package io.github.dropwizardhikari.example;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.h2.tools.Server;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An exhausted pool and a database that went away both answer 503 with a JSON body, within the pool's
 * connection timeout (500 ms here), on HikariCP and on Tomcat alike.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class DatabaseUnavailableTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, a database that goes away under requests."
            + " WARN and ERROR lines in this log are expected.");
    }

    private static final RefusedPort H2_PORT = refusedPort();
    private static final Server H2_SERVER = startH2Server();

    static final DropwizardAppExtension<QuestionsConfiguration> HIKARI = TestApps.hikariOnH2("exhausted_hikari",
        "hikari.maxSize", "1", "hikari.maxWaitForConnection", "500ms");
    static final DropwizardAppExtension<QuestionsConfiguration> TOMCAT = TestApps.tomcatOnH2("exhausted_tomcat",
        "database.maxSize", "1", "database.minSize", "1", "database.maxWaitForConnection", "500ms");
    static final DropwizardAppExtension<QuestionsConfiguration> REMOTE = TestApps.hikariOnH2("remote",
        "hikari.url", "jdbc:h2:tcp://127.0.0.1:" + H2_PORT.port + "/mem:remote;DB_CLOSE_DELAY=-1",
        "hikari.maxSize", "2", "hikari.maxWaitForConnection", "500ms");

    private final ObjectMapper json = new ObjectMapper();
    // java.net.http, not the JDK's HttpURLConnection, which quietly sends a GET again after a 503
    private final HttpClient http = HttpClient.newHttpClient();

    private static RefusedPort refusedPort() {
        try {
            return RefusedPort.take();
        } catch (IOException e) {
            throw new IllegalStateException("no port for the test's H2 TCP server", e);
        }
    }

    private static Server startH2Server() {
        try {
            H2_PORT.release();
            return Server.createTcpServer("-tcpPort", String.valueOf(H2_PORT.port), "-ifNotExists").start();
        } catch (IOException | SQLException e) {
            throw new IllegalStateException("could not start an H2 TCP server for the test", e);
        }
    }

    @AfterAll
    static void stopH2Server() throws IOException {
        H2_SERVER.stop();
        H2_PORT.close();
    }

    private JsonNode expect503Within(DropwizardAppExtension<QuestionsConfiguration> app, long maxMillis)
        throws Exception {
        long started = System.nanoTime();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(
            URI.create("http://localhost:" + app.getLocalPort() + "/questions?user=1")).build(),
            HttpResponse.BodyHandlers.ofString());
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
            type -> assertThat(type).startsWith("application/json"));
        assertThat(response.headers().firstValue("Retry-After")).contains("1");
        assertThat(tookMillis).as("503 after %d ms (the pool's timeout: 500 ms)", tookMillis).isLessThan(maxMillis);
        JsonNode body = json.readTree(response.body());
        assertThat(body.get("code").asInt()).isEqualTo(503);
        return body;
    }

    @Test
    void anExhaustedHikariPoolAnswers503AfterItsTimeout() throws Exception {
        long started = System.nanoTime();
        try (Handle held = HIKARI.<QuestionsApplication>getApplication().getJdbi().open()) {
            held.createQuery("SELECT 1").mapTo(Integer.class).one();
            JsonNode body = expect503Within(HIKARI, 2_000);
            assertThat(body.get("message").asText())
                .startsWith("database unavailable: questions - Connection is not available, request timed out after");
        }
        long heldMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertThat(heldMillis).as("the request waited within %d ms (the pool's timeout: 500 ms)", heldMillis)
            .isGreaterThanOrEqualTo(500);
    }

    @Test
    void anExhaustedTomcatPoolAnswers503AfterItsTimeout() throws Exception {
        try (Handle held = TOMCAT.<QuestionsApplication>getApplication().getJdbi().open()) {
            held.createQuery("SELECT 1").mapTo(Integer.class).one();
            JsonNode body = expect503Within(TOMCAT, 2_000);
            assertThat(body.get("message").asText()).startsWith("database unavailable: ").contains("Timeout");
        }
    }

    @Test
    void aDatabaseThatWentAwayAnswers503() throws Exception {
        HttpResponse<String> before = http.send(HttpRequest.newBuilder(
            URI.create("http://localhost:" + REMOTE.getLocalPort() + "/questions?user=1")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(before.statusCode()).isEqualTo(200);

        H2_SERVER.stop();
        // the database is gone, and its port refuses connections for the rest of the test
        H2_PORT.refuseAgain();

        // the first request may meet a pooled connection whose socket just died; every one is a 503 in time
        for (int i = 0; i < 3; i++) {
            JsonNode body = expect503Within(REMOTE, 3_000);
            assertThat(body.get("message").asText()).startsWith("database unavailable: ");
        }
    }
}
