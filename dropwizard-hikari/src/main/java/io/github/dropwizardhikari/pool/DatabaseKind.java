package io.github.dropwizardhikari.pool;

import org.jspecify.annotations.Nullable;

import java.util.Locale;

/**
 * Which database a pool talks to, read from its URL, driver class or data source class name, in one place: the
 * error codes that mean a lost connection, the connection-limit query, the default catalog and the
 * transaction-pooler warnings each depend on it.
 */
public enum DatabaseKind {
    POSTGRESQL,
    /** MariaDB and MySQL, whose drivers share error codes and SQL. */
    MARIADB,
    H2,
    OTHER;

    /**
     * @param jdbcUrl             the pool's URL, or {@code null}
     * @param driverClassName     its driver class, or {@code null}
     * @param dataSourceClassName its data source class, or {@code null}
     */
    public static DatabaseKind of(@Nullable String jdbcUrl, @Nullable String driverClassName,
                                  @Nullable String dataSourceClassName) {
        // ":postgresql:" also finds a URL behind a wrapping driver (jdbc:otel:postgresql:...)
        String names = (jdbcUrl + " " + driverClassName + " " + dataSourceClassName).toLowerCase(Locale.ROOT);
        if (names.contains(":postgresql:") || names.contains("org.postgresql.")) {
            return POSTGRESQL;
        }
        if (names.contains(":mariadb:") || names.contains(":mysql:") || names.contains("org.mariadb.")
            || names.contains("com.mysql.")) {
            return MARIADB;
        }
        if (names.contains(":h2:") || names.contains("org.h2.")) {
            return H2;
        }
        return OTHER;
    }
}
