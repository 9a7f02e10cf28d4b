package io.github.dropwizardhikari.example.db;

import org.apache.tomcat.jdbc.pool.Validator;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Makes Tomcat's pool validate with JDBC 4 {@code Connection.isValid()}, as HikariCP does, instead of running
 * Dropwizard's validation query, so that the {@code tomcat-safe} configuration is compared fairly.
 */
public class IsValidValidator implements Validator {
    private static final int TIMEOUT_SECONDS = 5;

    @Override
    public boolean validate(Connection connection, int validateAction) {
        try {
            return connection.isValid(TIMEOUT_SECONDS);
        } catch (SQLException e) {
            return false;
        }
    }
}
