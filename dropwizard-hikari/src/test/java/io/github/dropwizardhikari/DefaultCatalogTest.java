package io.github.dropwizardhikari;

import com.zaxxer.hikari.HikariConfig;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The catalog a pool resets to, read from the configuration without a connection. */
class DefaultCatalogTest {
    @ParameterizedTest(name = "{0}")
    @CsvSource(nullValues = "none", value = {
        "jdbc:mariadb://127.0.0.1:3306/test, test",
        "jdbc:mariadb://127.0.0.1:3306/test?user=root&password=x, test",
        "'jdbc:mysql://db1:3306,db2:3306/orders?useSSL=false', orders",
        "'jdbc:mariadb:replication://primary,replica/app_db', app_db",
        "jdbc:mariadb://[::1]:3306/my%20db, my db",
        "jdbc:mariadb://127.0.0.1:3306/, none",
        "jdbc:mariadb://127.0.0.1:3306, none",
        "jdbc:mariadb://127.0.0.1:3306?user=root, none",
        "jdbc:postgresql://127.0.0.1:5432/test, none",
        "jdbc:h2:mem:test, none",
    })
    void readsTheDatabaseOfAMariaDbOrMySqlUrl(String url, String catalog) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        DefaultCatalog.adopt(config);
        assertThat(config.getCatalog()).isEqualTo(catalog);
    }

    @Test
    void aConfiguredCatalogWins() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:mariadb://127.0.0.1:3306/test");
        config.setCatalog("other");
        DefaultCatalog.adopt(config);
        assertThat(config.getCatalog()).isEqualTo("other");
    }

    @Test
    void aMariaDbDataSourceNamesItsDatabase() {
        HikariConfig config = new HikariConfig();
        config.setDataSourceClassName("org.mariadb.jdbc.MariaDbDataSource");
        config.addDataSourceProperty("url", "jdbc:mariadb://127.0.0.1:3306/from_url");
        DefaultCatalog.adopt(config);
        assertThat(config.getCatalog()).isEqualTo("from_url");

        HikariConfig named = new HikariConfig();
        named.setDataSourceClassName("com.mysql.cj.jdbc.MysqlDataSource");
        named.addDataSourceProperty("databaseName", "orders");
        DefaultCatalog.adopt(named);
        assertThat(named.getCatalog()).isEqualTo("orders");
    }
}
