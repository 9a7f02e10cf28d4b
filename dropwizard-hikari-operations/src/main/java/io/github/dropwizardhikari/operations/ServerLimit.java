package io.github.dropwizardhikari.operations;

import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * How many connections a database server accepts from ordinary users, read over one of the pool's own connections.
 *
 * @param server      what was asked ({@code PostgreSQL}, {@code MariaDB})
 * @param connections the connections available to this pool's kind of user
 * @param derivation  how {@code connections} follows from the server's settings, for the log
 */
record ServerLimit(String server, int connections, String derivation) {
    // PostgreSQL 16 added reserved_connections (for pg_use_reserved_connections); missing_ok reads it as NULL before
    private static final String POSTGRES = "SELECT current_setting('max_connections')::int, "
        + "current_setting('superuser_reserved_connections')::int, "
        + "COALESCE(current_setting('reserved_connections', true), '0')::int";
    private static final String MYSQL = "SELECT @@GLOBAL.max_connections";

    /** @param names a pool's URL or data source class; ":postgresql:" also finds jdbc:otel:postgresql:... */
    static boolean isPostgres(@Nullable String names) {
        return String.valueOf(names).toLowerCase(Locale.ROOT).matches("(?s).*(:postgresql:|org\\.postgresql\\.).*");
    }

    /** @return whether the limit of the pool's database can be read: PostgreSQL, MariaDB or MySQL */
    static boolean isKnown(@Nullable String url, @Nullable String dataSourceClassName) {
        return (url + " " + dataSourceClassName).toLowerCase(Locale.ROOT)
            .matches("(?s).*(:postgresql:|org\\.postgresql\\.|:mariadb:|:mysql:|org\\.mariadb\\.|com\\.mysql\\.).*");
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
