package io.github.dropwizardhikari.it.sizing;

import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

class SizingPostgresIT extends SizingIT {
    @Override
    TestDatabase server() {
        return TestDatabases.postgres();
    }

    private static int setting(Connection connection, String name) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery("SHOW "
            + name)) {
            result.next();
            return Integer.parseInt(result.getString(1));
        }
    }

    // PostgreSQL 16 added reserved_connections; the suite's servers are 15 and older
    @Override
    int limit(Connection connection) throws SQLException {
        return setting(connection, "max_connections") - setting(connection, "superuser_reserved_connections");
    }

    @Override
    String derivation(Connection connection) throws SQLException {
        return "max_connections " + setting(connection, "max_connections") + " minus "
            + setting(connection, "superuser_reserved_connections") + " reserved";
    }

    @Override
    String serverName() {
        return "PostgreSQL";
    }
}
