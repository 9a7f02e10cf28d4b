package io.github.dropwizardhikari.recovery;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * A JDBC driver for {@code jdbc:outage:<h2 url>} that opens real H2 connections while the "database" is up and
 * refuses them, as a stopped server would, while it is down; it counts every attempt.
 */
public final class OutageDriver implements Driver {
    public static final String PREFIX = "jdbc:outage:";
    private static final AtomicBoolean DOWN = new AtomicBoolean();
    private static final AtomicInteger ATTEMPTS = new AtomicInteger();

    static {
        try {
            DriverManager.registerDriver(new OutageDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public static String url(String database) {
        return PREFIX + "jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1";
    }

    public static void down(boolean isDown) {
        DOWN.set(isDown);
    }

    public static int attempts() {
        return ATTEMPTS.get();
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        ATTEMPTS.incrementAndGet();
        if (DOWN.get()) {
            throw new SQLException("Connection refused", "08001");
        }
        return new org.h2.Driver().connect(url.substring(PREFIX.length()), info);
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
