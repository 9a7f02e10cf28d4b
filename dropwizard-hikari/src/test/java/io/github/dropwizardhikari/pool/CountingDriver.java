package io.github.dropwizardhikari.pool;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;

/**
 * A JDBC driver for {@code jdbc:counting:<h2 url>} that opens real H2 connections and counts them, so tests can
 * see exactly when the pool connects.
 */
public final class CountingDriver implements Driver {
    public static final String PREFIX = "jdbc:counting:";
    private static final AtomicInteger OPENED = new AtomicInteger();

    static {
        try {
            DriverManager.registerDriver(new CountingDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** @return a URL of this driver for a private in-memory H2 database */
    public static String url(String database) {
        return PREFIX + "jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1";
    }

    public static int opened() {
        return OPENED.get();
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        OPENED.incrementAndGet();
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
