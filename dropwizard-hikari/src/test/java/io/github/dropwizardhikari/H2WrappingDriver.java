package io.github.dropwizardhikari;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * A test JDBC driver for {@code <prefix><h2 url>} that opens real H2 connections, after {@link #beforeConnect()}
 * has had its say, and passes them through {@link #wrap(Connection)}: the JDBC plumbing the tests' drivers share, so
 * each states only what it does to a connect.
 */
public abstract class H2WrappingDriver implements Driver {
    private final String prefix;

    protected H2WrappingDriver(String prefix) {
        this.prefix = prefix;
    }

    /** @return a URL with {@code prefix} for a private in-memory H2 database */
    protected static String url(String prefix, String database) {
        return prefix + "jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1";
    }

    /**
     * Runs before each connection this driver opens: counts it, or refuses it by throwing.
     */
    protected abstract void beforeConnect() throws SQLException;

    @Override
    public final Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null;
        }
        beforeConnect();
        return wrap(new org.h2.Driver().connect(url.substring(prefix.length()), info));
    }

    /** @return the connection the pool gets for H2's {@code connection}: that one, unless a driver changes it */
    protected Connection wrap(Connection connection) {
        return connection;
    }

    @Override
    public final boolean acceptsURL(String url) {
        return url != null && url.startsWith(prefix);
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
