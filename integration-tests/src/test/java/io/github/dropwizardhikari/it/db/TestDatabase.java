package io.github.dropwizardhikari.it.db;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A database server the suite can use, and where it came from (for the log). {@link #isolated(String)} gives
 * each test class a schema (PostgreSQL) or database (MariaDB) of its own, unique to this run.
 */
public record TestDatabase(DatabaseKind kind, String url, String user, String password, String source) {

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    /**
     * A fresh, empty namespace for {@code base} on this server, and a URL that uses it. Its name is
     * {@link RunNames#unique(String) unique to this run} (so concurrent runs on one server never share it), and
     * it is dropped when the JVM exits.
     */
    public TestDatabase isolated(String base) {
        String name = RunNames.unique(base);
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute(kind == DatabaseKind.POSTGRES ? "CREATE SCHEMA " + name : "CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("could not prepare " + name + " on " + source + ": " + e.getMessage(), e);
        }
        dropAtExit(name);
        if (kind == DatabaseKind.POSTGRES) {
            return withUrl(withParameter(url, "currentSchema", name));
        }
        return withUrl(url.replaceFirst("(//[^/]+/)[^?]*", "$1" + name));
    }

    /**
     * Drops the schema (PostgreSQL) or database (MariaDB) {@code name} when the JVM exits, so a shared server
     * does not collect one namespace per run. Best effort: a run that is killed leaves its namespaces behind,
     * and no later run uses their names.
     */
    public void dropAtExit(String name) {
        String drop = kind == DatabaseKind.POSTGRES ? "DROP SCHEMA IF EXISTS " + name + " CASCADE"
            : "DROP DATABASE IF EXISTS " + name;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (Connection connection = connect(); Statement statement = connection.createStatement()) {
                statement.execute(drop);
            } catch (SQLException e) {
                // the server may already be gone (an embedded PostgreSQL stops in its own hook)
            }
        }, "drop " + name));
    }

    public TestDatabase withUrl(String newUrl) {
        return new TestDatabase(kind, newUrl, user, password, source);
    }

    /** The same server reached through another host and port, such as a test's TCP proxy. */
    public TestDatabase through(String hostAndPort) {
        return withUrl(url.replaceFirst("//[^/]+/", "//" + hostAndPort + "/"));
    }

    /** The database named in the URL's path. */
    public String databaseName() {
        return url.replaceFirst("^jdbc:[a-z]+://[^/]+/([^?;]*).*$", "$1");
    }

    /**
     * The namespace this URL works in: the schema named by {@code currentSchema} (PostgreSQL) or the database
     * (MariaDB). For a URL from {@link #isolated(String)}, the run-unique name to hand to tools that take one.
     */
    public String namespace() {
        if (kind == DatabaseKind.POSTGRES) {
            return url.replaceFirst("^.*[?&]currentSchema=([^&]*).*$", "$1");
        }
        return databaseName();
    }

    /** host:port of the server. */
    public String hostAndPort() {
        return url.replaceFirst("^jdbc:[a-z]+://([^/]+)/.*$", "$1");
    }

    public static String withParameter(String url, String key, String value) {
        return url + (url.contains("?") ? "&" : "?") + key + "=" + value;
    }

    @Override
    public String toString() {
        return kind.displayName() + " at " + url + " (" + source + ")";
    }
}
