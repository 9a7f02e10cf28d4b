package io.github.dropwizardhikari.faults;

import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.util.Collections;
import java.util.Properties;

/**
 * Connects as HikariCP does for a pool configured by URL, with the JDBC API alone instead of HikariCP's internals.
 * The driver is found on first use, so a missing one fails a connection attempt, not the pool's build; such errors
 * carry no SQLState, so they are never retried as an unreachable database.
 */
final class DriverConnector {
    private final String url;
    @Nullable
    private final String driverClassName;
    private final Properties properties;
    @Nullable
    private volatile Driver driver;

    DriverConnector(String url, @Nullable String driverClassName, Properties properties) {
        this.url = url;
        this.driverClassName = driverClassName;
        this.properties = new Properties();
        this.properties.putAll(properties);
    }

    Connection connect(@Nullable String user, @Nullable String password) throws SQLException {
        Properties info = new Properties();
        info.putAll(properties);
        if (user != null) {
            info.setProperty("user", user);
        }
        if (password != null) {
            info.setProperty("password", password);
        }
        Driver resolved = driver();
        Connection connection = resolved.connect(url, info);
        if (connection == null) {
            throw new SQLNonTransientConnectionException("the JDBC driver " + resolved.getClass().getName()
                + " does not accept the url", (String) null);
        }
        return connection;
    }

    private Driver driver() throws SQLException {
        Driver resolved = driver;
        if (resolved == null) {
            resolved = driverClassName == null ? registeredFor(url) : load(driverClassName);
            driver = resolved;
        }
        return resolved;
    }

    private static Driver registeredFor(String url) throws SQLException {
        try {
            return DriverManager.getDriver(url);
        } catch (SQLException e) {
            throw new SQLNonTransientConnectionException("no JDBC driver accepts the url: " + e.getMessage(), null, e);
        }
    }

    private static Driver load(String className) throws SQLException {
        for (Driver registered : Collections.list(DriverManager.getDrivers())) {
            if (registered.getClass().getName().equals(className)) {
                return registered;
            }
        }
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        try {
            Class<?> type = Class.forName(className, true,
                context != null ? context : DriverConnector.class.getClassLoader());
            return (Driver) type.getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException | LinkageError | ClassCastException e) {
            throw new SQLNonTransientConnectionException("cannot load the JDBC driver class " + className + ": "
                + e, null, e);
        }
    }
}
