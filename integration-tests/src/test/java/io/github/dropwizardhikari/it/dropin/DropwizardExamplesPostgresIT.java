package io.github.dropwizardhikari.it.dropin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.configuration.YamlConfigurationFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Iterator;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Dropwizard's documented {@code database:} examples (the JDBI and Hibernate guides, and dropwizard-db's own
 * minimal and full pool fixtures), renamed to {@code hikari:} and nothing else changed but where they connect:
 * {@code db migrate} (Liquibase), then the application with JDBI and Hibernate, on PostgreSQL.
 */
class DropwizardExamplesPostgresIT {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, blocks with Tomcat-only and adjusted settings."
            + " WARN and ERROR lines in this log are expected.");
    }

    private static final String EXAMPLE_URL = "jdbc:postgresql://db.example.com/db-prod";
    private static final String EXAMPLE_USER = "user: pg-user";
    private static final String EXAMPLE_PASSWORD = "password: iAMs00perSecrEET";

    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    @ParameterizedTest
    @ValueSource(strings = {"jdbi-guide", "hibernate-guide", "minimal-db-pool", "full-db-pool"})
    void dropwizardsExampleStartsAsHikariWithJdbiHibernateAndMigrations(String example) throws Exception {
        String block = resource("dropwizard-examples/" + example + ".yml");
        assertThat(dropwizardAccepts(block.replace("hikari:", "database:")))
            .as("Dropwizard's own factory accepts the example as database:").isTrue();

        withApp(example, block, app -> exerciseClients(app, example));
    }

    /**
     * Dropwizard's full fixture turns auto-commit off and {@code commitOnReturn} on. JDBI sees a connection that
     * is already in a transaction and leaves the commit to its owner: Tomcat's pool commits on return, HikariCP
     * rolls back on return ({@code commitOnReturn} is Tomcat-only and warns). The same request shows both.
     */
    @Test
    void commitOnReturnIsTomcatOnlyUncommittedJdbiWorkIsRolledBackByHikari() throws Exception {
        String block = resource("dropwizard-examples/full-db-pool.yml");
        String[] counts = new String[2];
        withApp("commit-on-return", block.replace("hikari:", "database:"),
            app -> counts[0] = send("POST", app.getLocalPort(), "/counters?name=tomcat").body());
        withApp("commit-on-return", block,
            app -> counts[1] = send("POST", app.getLocalPort(), "/counters?name=hikari").body());

        assertThat(counts[0]).as("Dropwizard's Tomcat pool commits on return").isEqualTo("2");
        assertThat(counts[1]).as("HikariCP rolls back on return").isEqualTo("0");
    }

    /** Migrates a fresh schema with {@code db migrate} and runs the application on it. */
    private void withApp(String name, String block, AppCheck check) throws Exception {
        String schema = "it_example_" + name.replace('-', '_') + "_" + Long.toHexString(System.nanoTime());
        TestDatabase server = TestDatabases.postgres();
        TestDatabase database = server.isolated(schema);
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            // full_db_pool's initializationQuery logs every new connection here
            statement.execute("CREATE TABLE connections_log (ts TIMESTAMP NOT NULL)");
        }
        Path config = Files.createTempFile(name, ".yml");
        try {
            Files.writeString(config, block.replace(EXAMPLE_URL, database.url())
                .replace(EXAMPLE_USER, "user: " + server.user())
                .replace(EXAMPLE_PASSWORD, "password: \"" + server.password() + "\"") + appSettings());

            new DropInApp().run("db", "migrate", config.toString());

            DropwizardAppExtension<DropInApp.Config> app = new DropwizardAppExtension<>(DropInApp.class,
                config.toString());
            app.before();
            try {
                check.run(app);
            } finally {
                app.after();
            }
        } finally {
            Files.deleteIfExists(config);
        }
    }

    @FunctionalInterface
    private interface AppCheck {
        void run(DropwizardAppExtension<DropInApp.Config> app) throws Exception;
    }

    private void exerciseClients(DropwizardAppExtension<DropInApp.Config> app, String example) throws Exception {
        HttpResponse<String> counters = send("POST", app.getLocalPort(), "/counters?name=" + example);
        assertThat(counters.statusCode()).isEqualTo(200);
        if (!example.equals("full-db-pool")) {
            // with auto-commit off, the full fixture's JDBI work is rolled back on return: see below
            assertThat(counters.body()).isEqualTo("2");
        }
        assertThat(send("POST", app.getLocalPort(), "/notes?text=" + example).statusCode()).isEqualTo(200);
        assertThat(json.readTree(send("GET", app.getLocalPort(), "/notes").body()).findValuesAsText("text"))
            .contains(example);

        JsonNode health = json.readTree(send("GET", app.getAdminPort(), "/healthcheck").body());
        assertThat(health.has("jdbi.pool.ConnectivityCheck")).isTrue();
        assertThat(health.has("hibernate.pool.ConnectivityCheck")).isTrue();
        Iterator<Map.Entry<String, JsonNode>> checks = health.fields();
        while (checks.hasNext()) {
            Map.Entry<String, JsonNode> check = checks.next();
            assertThat(check.getValue().get("healthy").asBoolean()).as("%s: %s", check.getKey(), check.getValue())
                .isTrue();
        }

        JsonNode gauges = json.readTree(send("GET", app.getAdminPort(), "/metrics").body()).get("gauges");
        int expectedMax = example.startsWith("minimal") ? 10 : 32;
        assertThat(gauges.get("jdbi.pool.MaxConnections").get("value").asInt()).isEqualTo(expectedMax);
        assertThat(gauges.get("jdbi.pool.MinConnections").get("value").asInt())
            .isEqualTo(example.startsWith("minimal") ? 10 : 8);
    }

    private static boolean dropwizardAccepts(String databaseBlock) throws Exception {
        String yaml = databaseBlock + appSettings();
        DropInApp.Config config = new YamlConfigurationFactory<>(DropInApp.Config.class, Validators.newValidator(),
            Jackson.newObjectMapper(), "dw")
            .build(path -> new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "database.yml");
        return config.database != null && config.hikari == null;
    }

    private static String appSettings() {
        return "server:\n  applicationConnectors:\n    - type: http\n      port: 0\n"
            + "  adminConnectors:\n    - type: http\n      port: 0\n  requestLog:\n    appenders: []\n"
            + "logging:\n  level: WARN\n";
    }

    private static String resource(String name) throws Exception {
        try (InputStream in = DropwizardExamplesPostgresIT.class.getClassLoader().getResourceAsStream(name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private HttpResponse<String> send(String method, int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }
}
