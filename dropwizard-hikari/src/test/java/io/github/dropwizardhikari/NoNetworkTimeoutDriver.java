package io.github.dropwizardhikari;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;

/**
 * A JDBC driver for {@code jdbc:no-network-timeout:<h2 url>} whose connections refuse JDBC's network timeout, as
 * drivers without one do ({@code SQLFeatureNotSupportedException} from {@code get/setNetworkTimeout}); everything
 * else is H2's.
 */
public final class NoNetworkTimeoutDriver extends H2WrappingDriver {
    public static final String PREFIX = "jdbc:no-network-timeout:";

    static {
        try {
            DriverManager.registerDriver(new NoNetworkTimeoutDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public NoNetworkTimeoutDriver() {
        super(PREFIX);
    }

    /** @return a URL of this driver for a private in-memory H2 database */
    public static String url(String database) {
        return url(PREFIX, database);
    }

    @Override
    protected void beforeConnect() {
        // every connect goes through
    }

    @Override
    protected Connection wrap(Connection h2) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
                if (method.getName().endsWith("NetworkTimeout")) {
                    throw new SQLFeatureNotSupportedException(method.getName() + " is not supported");
                }
                try {
                    return method.invoke(h2, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });
    }
}
