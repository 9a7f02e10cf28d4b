package io.github.dropwizardhikari.it.db;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A database server the suite can use, and where it came from (for the log). {@link #isolated(String)} gives
 * each test class a schema (PostgreSQL) or database (MariaDB) of its own.
 */
public record TestDatabase(DatabaseKind kind, String url, String user, String password, String source) {

    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    /** A fresh, empty namespace called {@code name} on this server, and a URL that uses it. */
    public TestDatabase isolated(String name) {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            if (kind == DatabaseKind.POSTGRES) {
                statement.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
                statement.execute("CREATE SCHEMA " + name);
                return withUrl(withParameter(url, "currentSchema", name));
            }
            statement.execute("DROP DATABASE IF EXISTS " + name);
            statement.execute("CREATE DATABASE " + name);
            return withUrl(url.replaceFirst("(//[^/]+/)[^?]*", "$1" + name));
        } catch (SQLException e) {
            throw new IllegalStateException("could not prepare " + name + " on " + source + ": " + e.getMessage(), e);
        }
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
