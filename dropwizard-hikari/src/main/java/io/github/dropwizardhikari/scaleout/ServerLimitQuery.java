package io.github.dropwizardhikari.scaleout;

import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/** Reads a server's connection limit over one of the pool's own connections. */
final class ServerLimitQuery {
    // PostgreSQL 16 added reserved_connections (for pg_use_reserved_connections); missing_ok reads it as NULL before
    private static final String POSTGRES = "SELECT current_setting('max_connections')::int, "
        + "current_setting('superuser_reserved_connections')::int, "
        + "COALESCE(current_setting('reserved_connections', true), '0')::int";
    private static final String MYSQL = "SELECT @@GLOBAL.max_connections";

    private ServerLimitQuery() {
    }

    /** @return {@code null} for a database other than PostgreSQL, MariaDB or MySQL */
    @Nullable
    static ServerLimit read(Connection connection, int timeoutSeconds) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String lower = product.toLowerCase(Locale.ROOT);
        try (Statement statement = connection.createStatement()) {
            statement.setQueryTimeout(timeoutSeconds);
            if (lower.contains("postgresql")) {
                try (ResultSet result = statement.executeQuery(POSTGRES)) {
                    result.next();
                    int max = result.getInt(1);
                    int reserved = result.getInt(2) + result.getInt(3);
                    return new ServerLimit("PostgreSQL", max - reserved, "max_connections " + max + " minus "
                        + reserved + " reserved");
                }
            }
            if (lower.contains("mariadb") || lower.contains("mysql")) {
                try (ResultSet result = statement.executeQuery(MYSQL)) {
                    result.next();
                    int max = result.getInt(1);
                    return new ServerLimit(lower.contains("mariadb") ? "MariaDB" : "MySQL", max,
                        "max_connections " + max);
                }
            }
        }
        return null;
    }
}
