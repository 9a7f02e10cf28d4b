package io.github.dropwizardhikari.fairborrowing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * H2 under {@code jdbc:breaking:} URLs, whose connections fail as a lost connection does (SQL state 08006) when
 * asked to prepare {@link #BREAK}: HikariCP then closes the borrowed connection itself; and whose validation
 * ({@code isValid}, which HikariCP runs on a connection idle for a while before lending it) takes
 * {@link #validationMillis} when set. Public, as HikariCP instantiates the driver class it is given.
 */
public final class BreakingDriver implements Driver {
    static final String BREAK = "BREAK";
    private static final String PREFIX = "jdbc:breaking:";
    static volatile long validationMillis;

    static String url(String name) {
        return PREFIX + "mem:" + name + ";DB_CLOSE_DELAY=-1";
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        Connection h2 = DriverManager.getConnection("jdbc:h2:" + url.substring(PREFIX.length()), info);
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[]{Connection.class},
            (proxy, method, args) -> {
                if (method.getName().equals("prepareStatement") && BREAK.equals(args[0])) {
                    throw new SQLException("An I/O error occurred while sending to the backend", "08006");
                }
                if (method.getName().equals("isValid") && validationMillis > 0) {
                    Thread.sleep(validationMillis);
                }
                try {
                    return method.invoke(h2, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });
    }

    @Override
    public boolean acceptsURL(String url) {
        return url != null && url.startsWith(PREFIX);
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
        return new DriverPropertyInfo[0];
    }

    @Override
    public int getMajorVersion() {
        return 1;
    }

    @Override
    public int getMinorVersion() {
        return 0;
    }

    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
    }
}
