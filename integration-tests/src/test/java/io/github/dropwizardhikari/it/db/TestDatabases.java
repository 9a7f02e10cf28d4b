package io.github.dropwizardhikari.it.db;

import ch.qos.logback.classic.Level;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.mariadb.MariaDBContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Decides, once per JVM, which database server each suite uses, and logs the choice:
 * <ol>
 *     <li>an explicit JDBC URL: {@code -Dit.postgres.url} / {@code IT_POSTGRES_URL}, {@code -Dit.mariadb.url} /
 *     {@code IT_MARIADB_URL} (with {@code .user} / {@code _USER} and {@code .password} / {@code _PASSWORD});</li>
 *     <li>Testcontainers, when a Docker engine answers;</li>
 *     <li>otherwise embedded PostgreSQL (zonky), and the MariaDB server on 127.0.0.1:3306 (root, no password).
 *     If the embedded server cannot start, the PostgreSQL server on 127.0.0.1:5432 is tried.</li>
 * </ol>
 * When none is reachable the suite fails with these instructions; it never skips.
 */
public final class TestDatabases {
    private static final Logger LOGGER = LoggerFactory.getLogger(TestDatabases.class);
    private static final String POSTGRES_IMAGE = "postgres:15-alpine";
    private static final String MARIADB_IMAGE = "mariadb:10.11";
    private static final String LOCAL_POSTGRES = "jdbc:postgresql://127.0.0.1:5432/test";
    private static final String LOCAL_MARIADB = "jdbc:mariadb://127.0.0.1:3306/test";
    private static final String EXPLICIT = "explicit URL";

    private static TestDatabase postgres;
    private static TestDatabase mariadb;
    private static Boolean docker;

    private TestDatabases() {
    }

    public static synchronized TestDatabase postgres() {
        if (postgres == null) {
            postgres = announce(resolvePostgres());
        }
        return postgres;
    }

    public static synchronized TestDatabase mariadb() {
        if (mariadb == null) {
            mariadb = announce(resolveMariaDb());
        }
        return mariadb;
    }

    private static TestDatabase resolvePostgres() {
        List<String> tried = new ArrayList<>();
        TestDatabase explicit = explicit(DatabaseKind.POSTGRES, "postgres", "postgres");
        if (explicit != null) {
            return verified(explicit, tried);
        }
        if (dockerAvailable()) {
            PostgreSQLContainer container = new PostgreSQLContainer(POSTGRES_IMAGE);
            container.start();
            return new TestDatabase(DatabaseKind.POSTGRES, container.getJdbcUrl(), container.getUsername(),
                container.getPassword(), "Testcontainers " + POSTGRES_IMAGE);
        }
        tried.add("Docker: no engine answered");
        try {
            EmbeddedPostgres embedded = EmbeddedPostgres.builder().start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(embedded)));
            TestDatabase database = new TestDatabase(DatabaseKind.POSTGRES, embedded.getJdbcUrl("postgres",
                "postgres"), "postgres", "", "embedded PostgreSQL (zonky)");
            return verified(database, tried);
        } catch (Exception | LinkageError e) {
            tried.add("embedded PostgreSQL: " + e.getMessage());
        }
        return verified(new TestDatabase(DatabaseKind.POSTGRES, LOCAL_POSTGRES, "postgres", "",
            "local PostgreSQL service"), tried);
    }

    private static TestDatabase resolveMariaDb() {
        List<String> tried = new ArrayList<>();
        TestDatabase explicit = explicit(DatabaseKind.MARIADB, "mariadb", "root");
        if (explicit != null) {
            return verified(explicit, tried);
        }
        if (dockerAvailable()) {
            MariaDBContainer container = new MariaDBContainer(MARIADB_IMAGE);
            container.start();
            // root, so the suite can create a database per test class
            return new TestDatabase(DatabaseKind.MARIADB, container.getJdbcUrl(), "root", container.getPassword(),
                "Testcontainers " + MARIADB_IMAGE);
        }
        tried.add("Docker: no engine answered");
        return verified(new TestDatabase(DatabaseKind.MARIADB, LOCAL_MARIADB, "root", "",
            "local MariaDB service"), tried);
    }

    private static TestDatabase explicit(DatabaseKind kind, String name, String defaultUser) {
        String url = setting("it." + name + ".url", "IT_" + name.toUpperCase() + "_URL", null);
        if (url == null) {
            return null;
        }
        return new TestDatabase(kind, url,
            setting("it." + name + ".user", "IT_" + name.toUpperCase() + "_USER", defaultUser),
            setting("it." + name + ".password", "IT_" + name.toUpperCase() + "_PASSWORD", ""),
            EXPLICIT);
    }

    private static String setting(String property, String variable, String fallback) {
        String value = System.getProperty(property, System.getenv(variable));
        return value == null || value.isBlank() ? fallback : value;
    }

    /**
     * Whether a Docker engine answers, asked once per JVM. Testcontainers logs a multi-line ERROR for every
     * strategy it tried when no engine answers, although the suite then simply uses another database; its
     * loggers are silenced for the question, and {@link #announce(TestDatabase)} logs the outcome in one line.
     */
    private static synchronized boolean dockerAvailable() {
        if (docker == null) {
            ch.qos.logback.classic.Logger testcontainers =
                (ch.qos.logback.classic.Logger) LoggerFactory.getLogger("org.testcontainers");
            Level level = testcontainers.getLevel();
            testcontainers.setLevel(Level.OFF);
            try {
                docker = DockerClientFactory.instance().isDockerAvailable();
            } catch (RuntimeException | LinkageError e) {
                docker = false;
            } finally {
                testcontainers.setLevel(level);
            }
        }
        return docker;
    }

    private static TestDatabase verified(TestDatabase database, List<String> tried) {
        try (Connection ignored = DriverManager.getConnection(database.url(), database.user(), database.password())) {
            return database;
        } catch (SQLException e) {
            tried.add(database + ": " + e.getMessage());
            throw new IllegalStateException("No " + database.kind().displayName() + " for the integration tests. "
                + "Tried: " + String.join("; ", tried) + ". Start Docker, or the local server, or set -Dit."
                + database.kind().name().toLowerCase() + ".url (IT_" + database.kind().name() + "_URL).", e);
        }
    }

    private static TestDatabase announce(TestDatabase database) {
        if (Boolean.FALSE.equals(docker) && !database.source().equals(EXPLICIT)) {
            LOGGER.info("No Docker engine for Testcontainers: integration tests use {}", database);
        } else {
            LOGGER.info("Integration tests use {}", database);
        }
        return database;
    }

    private static void closeQuietly(EmbeddedPostgres embedded) {
        try {
            embedded.close();
        } catch (Exception e) {
            LOGGER.debug("embedded PostgreSQL did not stop cleanly", e);
        }
    }
}
