package io.github.dropwizardhikari.example;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * The PostgreSQL the example's tests run against: {@code -Dit.postgres.url} / {@code IT_POSTGRES_URL}, else the
 * local server on 127.0.0.1:5432. Each test class gets a schema of its own whose name ends in an id unique to
 * this JVM, so concurrent runs on one server (other builds, overlapping CI jobs) never share or drop each other's
 * tables; the schemas are dropped when the JVM exits. A missing database fails the test with instructions; it
 * never skips.
 */
public final class TestPostgres {
    private static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test";
    private static final String RUN_ID = UUID.randomUUID().toString().replace("-", "").substring(0, 8);

    private TestPostgres() {
    }

    public static String baseUrl() {
        String url = System.getProperty("it.postgres.url", System.getenv("IT_POSTGRES_URL"));
        return url == null || url.isBlank() ? DEFAULT_URL : url;
    }

    public static String user() {
        String user = System.getProperty("it.postgres.user", System.getenv("IT_POSTGRES_USER"));
        return user == null || user.isBlank() ? "postgres" : user;
    }

    public static String password() {
        String password = System.getProperty("it.postgres.password", System.getenv("IT_POSTGRES_PASSWORD"));
        return password == null ? "" : password;
    }

    /** Creates a schema named {@code base} plus this run's id, and returns a URL whose connections use it. */
    public static String freshSchema(String base) {
        String schema = base + "_" + RUN_ID;
        try (Connection connection = DriverManager.getConnection(baseUrl(), user(), password());
             Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA " + schema);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> drop(schema), "drop " + schema));
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL is needed at " + baseUrl() + " (user " + user()
                + "): start it, or point -Dit.postgres.url / IT_POSTGRES_URL at one. Cause: " + e.getMessage(), e);
        }
        return baseUrl() + (baseUrl().contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    private static void drop(String schema) {
        try (Connection connection = DriverManager.getConnection(baseUrl(), user(), password());
             Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        } catch (SQLException e) {
            // best effort: a schema left behind has a name no later run uses
        }
    }
}
