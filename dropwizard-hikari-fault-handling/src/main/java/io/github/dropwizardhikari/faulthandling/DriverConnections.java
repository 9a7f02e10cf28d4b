package io.github.dropwizardhikari.faulthandling;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.util.Credentials;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Collections;
import java.util.Optional;
import java.util.Properties;

/**
 * Connects as HikariCP 7.1 does for a pool configured by URL, where HikariCP builds an internal data source
 * ({@code com.zaxxer.hikari.util.DriverDataSource}) that it gives no way to reach or wrap. The driver: the one
 * {@code DriverManager} has registered whose class is {@code driverClassName}, else that class instantiated from the
 * thread's context class loader or HikariCP's, else {@code DriverManager}'s driver for the URL; a named driver must
 * accept the URL. The properties: the driver properties, with the user and password HikariCP starts with where they
 * set none, HikariCP's user and password of each attempt over them. The rest answers as HikariCP's does.
 *
 * <p>{@link #of} gives nothing where HikariCP's would refuse the block (no driver, a driver that refuses the URL):
 * HikariCP then builds its own and fails in its own words. CONTRIBUTING names the change to HikariCP that would
 * make this class unnecessary.</p>
 */
final class DriverConnections implements DataSource {
    private static final Logger LOGGER = LoggerFactory.getLogger(DriverConnections.class);

    private final String url;
    private final Driver driver;
    private final Properties driverProperties;
    private final HikariConfig config;
    // HikariCP merges the credentials it starts with into the properties once, when it opens the pool
    @Nullable
    private volatile Properties merged;

    private DriverConnections(String url, Driver driver, HikariConfig config) {
        this.url = url;
        this.driver = driver;
        this.driverProperties = new Properties();
        this.driverProperties.putAll(config.getDataSourceProperties());
        this.config = config;
    }

    /** @return how HikariCP would connect for {@code config}, or nothing where it would refuse the block */
    static Optional<DriverConnections> of(HikariConfig config) {
        String url = config.getJdbcUrl();
        String driverClassName = config.getDriverClassName();
        Driver driver = driverClassName == null ? null : namedDriver(config.getPoolName(), driverClassName);
        try {
            if (driver == null) {
                driver = DriverManager.getDriver(url);
            } else if (!driver.acceptsURL(url)) {
                return Optional.empty();
            }
        } catch (SQLException e) {
            return Optional.empty();
        }
        return Optional.of(new DriverConnections(url, driver, config));
    }

    @Nullable
    private static Driver namedDriver(String poolName, String driverClassName) {
        for (Driver registered : Collections.list(DriverManager.getDrivers())) {
            if (registered.getClass().getName().equals(driverClassName)) {
                return registered;
            }
        }
        LOGGER.warn("Pool {}: no driver registered with DriverManager has the class {}; instantiating it, as HikariCP "
            + "does", poolName, driverClassName);
        Class<?> driverClass = null;
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null) {
            driverClass = load(context, driverClassName);
        }
        if (driverClass == null) {
            driverClass = load(HikariConfig.class.getClassLoader(), driverClassName);
        }
        if (driverClass == null) {
            return null;
        }
        try {
            return (Driver) driverClass.getDeclaredConstructor().newInstance();
        } catch (Exception e) {
            LOGGER.warn("Pool {}: cannot instantiate the driver class {}; using the driver for the URL", poolName,
                driverClassName, e);
            return null;
        }
    }

    @Nullable
    private static Class<?> load(ClassLoader loader, String name) {
        try {
            return loader.loadClass(name);
        } catch (ClassNotFoundException e) {
            return null;
        }
    }

    /** The driver this data source connects through: the instance HikariCP would have chosen. */
    Driver driver() {
        return driver;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return driver.connect(url, merged());
    }

    @Override
    public Connection getConnection(@Nullable String username, @Nullable String password) throws SQLException {
        Properties attempt = (Properties) merged().clone();
        if (username != null) {
            attempt.put("user", username);
            if (attempt.containsKey("username")) {
                attempt.put("username", username);
            }
        }
        if (password != null) {
            attempt.put("password", password);
        }
        return driver.connect(url, attempt);
    }

    private Properties merged() {
        Properties properties = merged;
        if (properties == null) {
            HikariCredentialsProvider provider = config.getCredentialsProvider();
            Credentials credentials = provider != null ? provider.getCredentials() : config.getCredentials();
            properties = (Properties) driverProperties.clone();
            if (credentials.getUsername() != null) {
                properties.put("user", properties.getProperty("user", credentials.getUsername()));
            }
            if (credentials.getPassword() != null) {
                properties.put("password", properties.getProperty("password", credentials.getPassword()));
            }
            merged = properties;
        }
        return properties;
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        throw new SQLFeatureNotSupportedException();
    }

    /** HikariCP 7.1 sets its connection timeout plus 500 ms here; drivers read it from the DriverManager. */
    @Override
    public void setLoginTimeout(int seconds) {
        DriverManager.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() {
        return DriverManager.getLoginTimeout();
    }

    @Override
    public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return driver.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLFeatureNotSupportedException();
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return false;
    }
}
