package io.github.dropwizardhikari.it.sizing;

import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

class SizingMariaDbIT extends SizingIT {
    @Override
    TestDatabase server() {
        return TestDatabases.mariadb();
    }

    @Override
    int limit(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SHOW GLOBAL VARIABLES LIKE 'max_connections'")) {
            result.next();
            return Integer.parseInt(result.getString(2));
        }
    }

    @Override
    String derivation(Connection connection) throws SQLException {
        return "max_connections " + limit(connection);
    }

    @Override
    String serverName() {
        return "MariaDB";
    }
}
