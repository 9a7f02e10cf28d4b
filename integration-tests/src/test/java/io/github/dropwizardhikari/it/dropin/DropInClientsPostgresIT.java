package io.github.dropwizardhikari.it.dropin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.DropwizardTestSupport;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import io.github.dropwizardhikari.it.report.GeneratedPages;
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
import java.util.Iterator;
import java.util.List;
import java.util.TreeSet;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Dropwizard's own clients on a {@code hikari:} block, in one application: {@code db migrate} and
 * {@code db status} through the real CLI, JDBI with a transaction, Hibernate with {@code @UnitOfWork}, and the
 * admin port's metrics and health checks; beside the same application on Dropwizard's Tomcat pool.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DropInClientsPostgresIT {
    private static final List<String> HIKARI_METRICS = List.of("Wait", "Usage", "ConnectionCreation",
        "ConnectionTimeoutRate", "TotalConnections", "IdleConnections", "ActiveConnections", "PendingConnections",
        "MaxConnections", "MinConnections");

    private final HttpClient http = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();
    private TestDatabase hikariDatabase;
    private Path hikariConfig;
    private Path tomcatConfig;
    private DropwizardTestSupport<DropInApp.Config> hikariApp;
    private DropwizardTestSupport<DropInApp.Config> tomcatApp;

    @BeforeAll
    void migrateAndStart() throws Exception {
        TestDatabase server = TestDatabases.postgres();
        hikariDatabase = server.isolated("it_dropin_hikari");
        hikariConfig = config("hikari:\n  url: " + hikariDatabase.url() + "\n  user: " + server.user()
            + "\n  password: \"" + server.password() + "\"\n  maxSize: 4\n");
        TestDatabase tomcatDatabase = server.isolated("it_dropin_tomcat");
        tomcatConfig = config("database:\n  driverClass: org.postgresql.Driver\n  url: " + tomcatDatabase.url()
            + "\n  user: " + server.user() + "\n  password: \"" + server.password() + "\"\n  maxSize: 4\n"
            + "  minSize: 1\n  initialSize: 1\n");

        Commands.run(new DropInApp(), "db", "migrate", hikariConfig.toString());
        Commands.run(new DropInApp(), "db", "migrate", tomcatConfig.toString());

        hikariApp = new DropwizardTestSupport<>(DropInApp.class, hikariConfig.toString());
        hikariApp.before();
        tomcatApp = new DropwizardTestSupport<>(DropInApp.class, tomcatConfig.toString());
        tomcatApp.before();
    }

    @AfterAll
    void stopAndDocument() throws Exception {
        try {
            if (hikariApp != null && tomcatApp != null) {
                writeMetricsPage();
            }
        } finally {
            if (hikariApp != null) {
                hikariApp.after();
            }
            if (tomcatApp != null) {
                tomcatApp.after();
            }
        }
    }

    private static Path config(String pool) throws Exception {
        Path file = Files.createTempFile("dropin", ".yml");
        Files.writeString(file, pool + "server:\n  applicationConnectors:\n    - type: http\n      port: 0\n"
            + "  adminConnectors:\n    - type: http\n      port: 0\n  requestLog:\n    appenders: []\n"
            + "logging:\n  level: WARN\n");
        return file;
    }

    private HttpResponse<String> send(String method, int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode admin(DropwizardTestSupport<?> app, String path) throws Exception {
        return json.readTree(send("GET", app.getAdminPort(), path).body());
    }

    @Test
    void dbMigrateCreatedTheTablesThroughHikari() throws Exception {
        try (Connection connection = hikariDatabase.connect(); Statement statement = connection.createStatement();
             ResultSet tables = statement.executeQuery("SELECT table_name FROM information_schema.tables "
                 + "WHERE table_schema = current_schema() ORDER BY table_name")) {
            List<String> names = new ArrayList<>();
            while (tables.next()) {
                names.add(tables.getString(1));
            }
            assertThat(names).contains("counters", "notes", "databasechangelog");
        }
    }

    @Test
    void dbStatusFindsNothingPending() throws Exception {
        String output = Commands.run(new DropInApp(), "db", "status", hikariConfig.toString());

        assertThat(output).containsIgnoringCase("is up to date");
    }

    @Test
    void jdbiRunsTransactionsAndItsHealthCheckPasses() throws Exception {
        HttpResponse<String> response = send("POST", hikariApp.getLocalPort(), "/counters?name=drop-in");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("2");
        assertThat(admin(hikariApp, "/healthcheck").get("jdbi").get("healthy").asBoolean()).isTrue();
    }

    @Test
    void hibernateWorksThroughUnitOfWork() throws Exception {
        assertThat(send("POST", hikariApp.getLocalPort(), "/notes?text=first").statusCode()).isEqualTo(200);
        assertThat(send("POST", hikariApp.getLocalPort(), "/notes?text=second").statusCode()).isEqualTo(200);

        JsonNode notes = json.readTree(send("GET", hikariApp.getLocalPort(), "/notes").body());

        assertThat(notes.findValuesAsText("text")).contains("first", "second");
        assertThat(admin(hikariApp, "/healthcheck").get("hibernate").get("healthy").asBoolean()).isTrue();
    }

    @Test
    void hikariHealthChecksAreAtTheAdminPort() throws Exception {
        JsonNode health = admin(hikariApp, "/healthcheck");

        for (String pool : List.of("jdbi", "hibernate")) {
            assertThat(health.get(pool + ".pool.ConnectivityCheck").get("healthy").asBoolean()).as(pool).isTrue();
        }
    }

    @Test
    void allTenHikariMetricsAreAtTheAdminPortAndMoveUnderLoad() throws Exception {
        JsonNode before = admin(hikariApp, "/metrics");
        for (String metric : HIKARI_METRICS) {
            assertThat(metricNames(before)).contains("jdbi.pool." + metric, "hibernate.pool." + metric);
        }
        long waitsBefore = before.get("timers").get("jdbi.pool.Wait").get("count").asLong();
        long usagesBefore = before.get("histograms").get("jdbi.pool.Usage").get("count").asLong();

        for (int i = 0; i < 20; i++) {
            assertThat(send("POST", hikariApp.getLocalPort(), "/counters?name=load").statusCode()).isEqualTo(200);
        }

        JsonNode after = admin(hikariApp, "/metrics");
        // each request borrows twice: once for the transaction, once for the count
        assertThat(after.get("timers").get("jdbi.pool.Wait").get("count").asLong())
            .isGreaterThanOrEqualTo(waitsBefore + 40);
        assertThat(after.get("histograms").get("jdbi.pool.Usage").get("count").asLong())
            .isGreaterThanOrEqualTo(usagesBefore + 40);
        assertThat(after.get("gauges").get("jdbi.pool.MaxConnections").get("value").asInt()).isEqualTo(4);
        assertThat(after.get("gauges").get("jdbi.pool.TotalConnections").get("value").asInt()).isPositive();
    }

    @Test
    void theTomcatPoolShowsItsOwnGaugesAndNoHikariMetrics() throws Exception {
        assertThat(send("POST", tomcatApp.getLocalPort(), "/counters?name=tomcat").body()).isEqualTo("2");
        TreeSet<String> names = metricNames(admin(tomcatApp, "/metrics"));

        assertThat(names).noneMatch(name -> name.contains(".pool.Wait"));
        assertThat(names).anyMatch(name -> name.startsWith("io.dropwizard.db.ManagedPooledDataSource.jdbi."));
        assertThat(admin(tomcatApp, "/healthcheck").has("jdbi.pool.ConnectivityCheck")).isFalse();
    }

    private static TreeSet<String> metricNames(JsonNode metrics) {
        TreeSet<String> names = new TreeSet<>();
        for (String type : List.of("gauges", "counters", "histograms", "meters", "timers")) {
            Iterator<String> fields = metrics.get(type).fieldNames();
            fields.forEachRemaining(names::add);
        }
        return names;
    }

    /** metrics.md (in target/docs): the pool metrics of both factories for the pool named {@code jdbi}, as served. */
    private void writeMetricsPage() throws Exception {
        JsonNode hikari = admin(hikariApp, "/metrics");
        JsonNode tomcat = admin(tomcatApp, "/metrics");
        List<String> hikariNames = poolMetrics(hikari, "jdbi.pool.");
        List<String> tomcatNames = poolMetrics(tomcat, "io.dropwizard.db.ManagedPooledDataSource.jdbi.");
        StringBuilder page = new StringBuilder("# Pool metrics: `hikari:` beside `database:`\n\n")
            .append("Generated by `integration-tests` (`DropInClientsPostgresIT`) from the admin port of the same ")
            .append("application, whose JDBI pool is named `jdbi`, and copied here by `bash docs/refresh.sh` after a ")
            .append("passing run; do not edit by hand.\n\n")
            .append("| `hikari:` (HikariCP's tracker) | type | `database:` (Dropwizard's Tomcat gauges) | type |\n")
            .append("|---|---|---|---|\n");
        for (int i = 0; i < Math.max(hikariNames.size(), tomcatNames.size()); i++) {
            page.append("| ").append(cell(hikari, hikariNames, i)).append(" | ")
                .append(cell(tomcat, tomcatNames, i)).append(" |\n");
        }
        GeneratedPages.write("metrics.md", page.toString());
    }

    private static List<String> poolMetrics(JsonNode metrics, String prefix) {
        return metricNames(metrics).stream().filter(name -> name.startsWith(prefix)).toList();
    }

    private static String cell(JsonNode metrics, List<String> names, int index) {
        if (index >= names.size()) {
            return " | ";
        }
        String name = names.get(index);
        for (String type : List.of("gauges", "counters", "histograms", "meters", "timers")) {
            if (metrics.get(type).has(name)) {
                return "`" + name + "` | " + type.substring(0, type.length() - 1);
            }
        }
        return "`" + name + "` | ?";
    }
}
