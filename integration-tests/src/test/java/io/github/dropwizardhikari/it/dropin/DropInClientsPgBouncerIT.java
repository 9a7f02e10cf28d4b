package io.github.dropwizardhikari.it.dropin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.DropwizardTestSupport;
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
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Dropwizard's clients on a {@code hikari:} block that points at PgBouncer in transaction mode, configured as the
 * PgBouncer block of docs/pgbouncer.md says: {@code db migrate} and {@code db status} (Liquibase), JDBI with a
 * transaction, Hibernate with {@code @UnitOfWork}, and the health checks. Each client runs its statements many more
 * times than the driver's default prepare threshold, which is where a transaction pooler breaks server-side prepares.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DropInClientsPgBouncerIT {
    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();
    private PgBouncerStack stack;
    private TestDatabase database;
    private Path config;
    private DropwizardTestSupport<DropInApp.Config> app;

    @BeforeAll
    void migrateAndStart() throws Exception {
        stack = PgBouncerStacks.get();
        database = stack.database("it_dropin");
        config = Files.createTempFile("dropin-pgbouncer", ".yml");
        // the block for PgBouncer's transaction mode in docs/pgbouncer.md
        Files.writeString(config, "hikari:\n  url: jdbc:postgresql://" + database.hostAndPort() + "/"
            + database.databaseName() + "\n  user: " + database.user() + "\n  password: \"\"\n  maxSize: 4\n"
            + "  properties:\n    prepareThreshold: \"0\"\n"
            + "  extensions:\n    - type: operations\n      pooler: transaction\n"
            + "server:\n  applicationConnectors:\n    - type: http\n      port: 0\n"
            + "  adminConnectors:\n    - type: http\n      port: 0\n  requestLog:\n    appenders: []\n"
            + "logging:\n  level: WARN\n");
        Commands.run(new DropInApp(), "db", "migrate", config.toString());
        app = new DropwizardTestSupport<>(DropInApp.class, config.toString());
        app.before();
    }

    @AfterAll
    void stop() throws Exception {
        if (app != null) {
            app.after();
        }
        Files.deleteIfExists(config);
    }

    private HttpResponse<String> send(String method, int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void dbMigrateCreatedTheTablesThroughPgBouncer() throws Exception {
        // checked on the server itself, bypassing PgBouncer
        try (Connection connection = stack.connectDirectly(database.databaseName());
             Statement statement = connection.createStatement();
             ResultSet tables = statement.executeQuery("SELECT table_name FROM information_schema.tables "
                 + "WHERE table_schema = 'public' ORDER BY table_name")) {
            List<String> names = new ArrayList<>();
            while (tables.next()) {
                names.add(tables.getString(1));
            }
            assertThat(names).contains("counters", "notes", "databasechangelog", "databasechangeloglock");
        }
        assertThat(Commands.run(new DropInApp(), "db", "status", config.toString()))
            .containsIgnoringCase("is up to date");
    }

    @Test
    void jdbiTransactionsCommitThroughPgBouncer() throws Exception {
        for (int i = 1; i <= 10; i++) {
            HttpResponse<String> response = send("POST", app.getLocalPort(), "/counters?name=bouncer");

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo(Integer.toString(2 * i));
        }
    }

    @Test
    void hibernateUnitsOfWorkThroughPgBouncer() throws Exception {
        for (int i = 0; i < 10; i++) {
            assertThat(send("POST", app.getLocalPort(), "/notes?text=bounced-" + i).statusCode()).isEqualTo(200);
        }

        JsonNode notes = json.readTree(send("GET", app.getLocalPort(), "/notes").body());

        assertThat(notes.findValuesAsText("text")).contains("bounced-0", "bounced-9");
    }

    @Test
    void everyHealthCheckPassesThroughPgBouncer() throws Exception {
        JsonNode health = json.readTree(send("GET", app.getAdminPort(), "/healthcheck").body());

        for (String check : List.of("jdbi", "hibernate", "jdbi.pool.ConnectivityCheck",
            "hibernate.pool.ConnectivityCheck")) {
            assertThat(health.get(check).get("healthy").asBoolean()).as(check).isTrue();
        }
    }
}
