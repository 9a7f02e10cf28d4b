package io.github.dropwizardhikari.benchmarks.jmh;

import org.apache.tomcat.jdbc.pool.Validator;

import java.sql.Connection;
import java.sql.SQLException;

/** tomcat-safe validates with {@code Connection.isValid()}, as HikariCP does. */
public class IsValidValidator implements Validator {
    @Override
    public boolean validate(Connection connection, int validateAction) {
        try {
            return connection.isValid(5);
        } catch (SQLException e) {
            return false;
        }
    }
}
