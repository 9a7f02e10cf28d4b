package io.github.dropwizardhikari.it.pools;

import org.apache.tomcat.jdbc.pool.Validator;

import java.sql.Connection;
import java.sql.SQLException;

/** Lets Tomcat validate with {@code Connection.isValid()}, as HikariCP does (the tomcat-safe configuration). */
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
