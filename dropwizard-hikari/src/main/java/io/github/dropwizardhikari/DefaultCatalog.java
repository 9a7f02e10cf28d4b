package io.github.dropwizardhikari;

import com.zaxxer.hikari.HikariConfig;
import org.jspecify.annotations.Nullable;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The catalog a MariaDB or MySQL connection starts in, read from the URL or {@code databaseName}, so the pool can put
 * it back: HikariCP 7.1 resets a catalog a borrower changed only to a configured one (PostgreSQL ignores it).
 */
final class DefaultCatalog {
    // jdbc:mariadb://hosts/database?... or jdbc:mysql://...
    private static final Pattern DATABASE_IN_URL = Pattern.compile("(?s)^.*?//[^/]*/([^?;&]*)");

    private DefaultCatalog() { }

    static void adopt(HikariConfig config) {
        if (config.getCatalog() == null) {
            config.setCatalog(of(config));
        }
    }

    private static @Nullable String of(HikariConfig config) {
        if (config.getJdbcUrl() != null) {
            return fromUrl(config.getJdbcUrl());
        }
        String className = config.getDataSourceClassName();
        if (className == null || !isMariaDb(className)) {
            return null;
        }
        Properties properties = config.getDataSourceProperties();
        String database = properties.getProperty("databaseName");
        String url = properties.getProperty("url");
        return database != null && !database.isBlank() ? database : url == null ? null : fromUrl(url);
    }

    private static @Nullable String fromUrl(String url) {
        Matcher database = DATABASE_IN_URL.matcher(url);
        if (!isMariaDb(url) || !database.find()) {
            return null;
        }
        String decoded = URLDecoder.decode(database.group(1), StandardCharsets.UTF_8);
        return decoded.isEmpty() ? null : decoded;
    }

    private static boolean isMariaDb(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        return lower.contains(":mariadb:") || lower.contains(":mysql:") || lower.contains("org.mariadb.")
            || lower.contains("com.mysql.");
    }
}
