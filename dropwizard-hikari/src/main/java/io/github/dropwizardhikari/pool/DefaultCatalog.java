package io.github.dropwizardhikari.pool;

import com.zaxxer.hikari.HikariConfig;
import org.jspecify.annotations.Nullable;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * The catalog a new connection starts in, read from the configuration (no connection outside the pool), so the pool
 * can put it back.
 *
 * <p>HikariCP 7.1 resets a catalog a borrower changed with {@code setCatalog} only to a configured {@code catalog};
 * with none, the next borrower inherits the change. On MariaDB and MySQL the catalog is the current database, named
 * by the URL or the data source's {@code databaseName}; PostgreSQL's driver ignores {@code setCatalog}.</p>
 */
final class DefaultCatalog {
    private DefaultCatalog() {
    }

    /** Sets the config's catalog to the database a MariaDB or MySQL connection starts in, when none is set. */
    static void adopt(HikariConfig config) {
        if (config.getCatalog() != null) {
            return;
        }
        String database = of(config);
        if (database != null) {
            config.setCatalog(database);
        }
    }

    @Nullable
    static String of(HikariConfig config) {
        String url = config.getJdbcUrl();
        if (url != null) {
            return fromUrl(url);
        }
        String className = config.getDataSourceClassName();
        if (className != null && DatabaseKind.of(null, null, className) == DatabaseKind.MARIADB) {
            String database = config.getDataSourceProperties().getProperty("databaseName");
            if (database != null && !database.isBlank()) {
                return database;
            }
            String dataSourceUrl = config.getDataSourceProperties().getProperty("url");
            return dataSourceUrl == null ? null : fromUrl(dataSourceUrl);
        }
        return null;
    }

    /** The database in a {@code jdbc:mariadb://hosts/database?...} or {@code jdbc:mysql://...} URL. */
    @Nullable
    static String fromUrl(String url) {
        if (DatabaseKind.of(url, null, null) != DatabaseKind.MARIADB) {
            return null;
        }
        int hosts = url.indexOf("//");
        if (hosts < 0) {
            return null;
        }
        int slash = url.indexOf('/', hosts + 2);
        if (slash < 0) {
            return null;
        }
        int end = slash + 1;
        while (end < url.length() && url.charAt(end) != '?' && url.charAt(end) != ';' && url.charAt(end) != '&') {
            end++;
        }
        String database = URLDecoder.decode(url.substring(slash + 1, end), StandardCharsets.UTF_8);
        return database.isEmpty() ? null : database;
    }
}
