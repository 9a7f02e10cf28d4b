package io.github.dropwizardhikari.it.example;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.DropwizardTestSupport;
import io.github.dropwizardhikari.example.QuestionsApplication;
import io.github.dropwizardhikari.example.QuestionsConfiguration;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.pgbouncer.PgBouncerStack;
import io.github.dropwizardhikari.it.pgbouncer.PgBouncerStacks;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example application through PgBouncer in transaction mode, beside the same application connected to the
 * same PostgreSQL server directly, both seeded with the same generated data: every endpoint answers through the
 * pooler as it does without it, reads, writes and the two-question transaction alike.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ExampleEndpointsPgBouncerIT {
    private static final String QUESTION = "{\"creationDate\":\"2024-05-01T10:00:00Z\",\"score\":3,"
        + "\"ownerUserId\":9999,\"answerCount\":4}";

    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();
    private final List<Path> configs = new ArrayList<>();
    private DropwizardTestSupport<QuestionsConfiguration> bounced;
    private DropwizardTestSupport<QuestionsConfiguration> direct;

    @BeforeAll
    void start() throws Exception {
        PgBouncerStack stack = PgBouncerStacks.get();
        TestDatabase throughBouncer = stack.database("it_example");
        stack.database("it_example_direct");
        bounced = app(throughBouncer, "  properties:\n    prepareThreshold: \"0\"\n"
            + "  extensions:\n    - type: operations\n      pooler: transaction\n");
        direct = app(stack.direct("it_example_direct"), "");
    }

    private DropwizardTestSupport<QuestionsConfiguration> app(TestDatabase database, String poolerSettings)
        throws Exception {
        Path config = Files.createTempFile("example-pgbouncer", ".yml");
        configs.add(config);
        Files.writeString(config, "hikari:\n  url: jdbc:postgresql://" + database.hostAndPort() + "/"
            + database.databaseName() + "\n  user: " + database.user() + "\n  password: \"\"\n  maxSize: 4\n"
            + "  maxWaitForConnection: 2 seconds\n" + poolerSettings
            + "seed:\n  migrateOnStart: true\n  rows: 3000\n  owners: 100\n"
            + "server:\n  applicationConnectors:\n    - type: http\n      port: 0\n"
            + "  adminConnectors:\n    - type: http\n      port: 0\n  requestLog:\n    appenders: []\n"
            + "logging:\n  level: WARN\n");
        DropwizardTestSupport<QuestionsConfiguration> app = new DropwizardTestSupport<>(QuestionsApplication.class,
            config.toString());
        app.before();
        return app;
    }

    @AfterAll
    void stop() throws Exception {
        for (DropwizardTestSupport<?> app : new DropwizardTestSupport<?>[] {bounced, direct}) {
            if (app != null) {
                app.after();
            }
        }
        for (Path config : configs) {
            Files.deleteIfExists(config);
        }
    }

    private HttpResponse<String> send(DropwizardTestSupport<?> app, String method, String path, String body)
        throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.getLocalPort()
            + path)).header("Content-Type", "application/json");
        return http.send(request.method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode get(DropwizardTestSupport<?> app, String path) throws Exception {
        HttpResponse<String> response = send(app, "GET", path, null);
        assertThat(response.statusCode()).as("GET %s", path).isEqualTo(200);
        return json.readTree(response.body());
    }

    @Test
    void readsAnswerAsTheyDoWithoutThePooler() throws Exception {
        // more requests per statement than pgjdbc's default prepare threshold of 5
        for (int user = 1; user <= 12; user++) {
            assertThat(get(bounced, "/questions?user=" + user)).as("user %d", user)
                .isEqualTo(get(direct, "/questions?user=" + user));
        }
        assertThat(get(bounced, "/questions/by-owners?users=1,2,3,4,5,6,7"))
            .isEqualTo(get(direct, "/questions/by-owners?users=1,2,3,4,5,6,7"));
        assertThat(get(bounced, "/questions/first?limit=500")).hasSize(500)
            .isEqualTo(get(direct, "/questions/first?limit=500"));
        assertThat(get(bounced, "/questions/42")).isEqualTo(get(direct, "/questions/42"));
    }

    @Test
    void writesAndTheMoveTransactionWorkThroughThePooler() throws Exception {
        HttpResponse<String> created = send(bounced, "POST", "/questions", QUESTION);
        assertThat(created.statusCode()).isEqualTo(201);
        long id = json.readTree(created.body()).get("id").asLong();
        long other = json.readTree(send(bounced, "POST", "/questions", QUESTION.replace("\"answerCount\":4",
            "\"answerCount\":0")).body()).get("id").asLong();

        HttpResponse<String> moved = send(bounced, "POST", "/questions/" + id + "/move-answers?to=" + other
            + "&count=3", "");
        assertThat(moved.statusCode()).isEqualTo(200);
        // a refused move rolls back inside its transaction: neither question changes
        assertThat(send(bounced, "POST", "/questions/" + id + "/move-answers?to=" + other + "&count=2", "")
            .statusCode()).isEqualTo(422);
        assertThat(get(bounced, "/questions/" + id).get("answerCount").asInt()).isEqualTo(1);
        assertThat(get(bounced, "/questions/" + other).get("answerCount").asInt()).isEqualTo(3);

        assertThat(send(bounced, "PUT", "/questions/" + id, QUESTION.replace("\"score\":3", "\"score\":30"))
            .statusCode()).isEqualTo(200);
        assertThat(get(bounced, "/questions/" + id).get("score").asInt()).isEqualTo(30);
        assertThat(send(bounced, "DELETE", "/questions/" + id, null).statusCode()).isEqualTo(204);
        assertThat(send(bounced, "DELETE", "/questions/" + other, null).statusCode()).isEqualTo(204);
        assertThat(send(bounced, "GET", "/questions/" + id, null).statusCode()).isEqualTo(404);
    }

    @Test
    void healthChecksPassThroughThePooler() throws Exception {
        HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
            + bounced.getAdminPort() + "/healthcheck")).build(), HttpResponse.BodyHandlers.ofString());
        JsonNode checks = json.readTree(health.body());

        assertThat(checks.get("questions").get("healthy").asBoolean()).isTrue();
        assertThat(checks.get("questions.pool.ConnectivityCheck").get("healthy").asBoolean()).isTrue();
    }
}
