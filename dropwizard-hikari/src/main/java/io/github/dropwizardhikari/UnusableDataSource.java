package io.github.dropwizardhikari;

import io.dropwizard.db.ManagedDataSource;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;

/**
 * What {@code build()} returns for a factory whose settings cannot make a pool (a factory built in Java and never
 * validated: no URL, a driver class that does not load): like Dropwizard's own pool, building succeeds and the
 * error comes as an {@link SQLException} naming the cause, from {@link #start()} and from every
 * {@link #getConnection()}.
 */
final class UnusableDataSource implements ManagedDataSource {
    // SQLState class 08: the client could not establish the connection
    private static final String CANNOT_CONNECT = "08001";

    private final String name;
    private final RuntimeException cause;

    UnusableDataSource(String name, RuntimeException cause) {
        this.name = name;
        this.cause = cause;
    }

    private SQLException failure() {
        return new SQLException("Pool " + name + " cannot start: " + cause.getMessage(), CANNOT_CONNECT, cause);
    }

    @Override
    public void start() throws SQLException {
        throw failure();
    }

    @Override
    public void stop() {
        // nothing was opened
    }

    @Override
    public Connection getConnection() throws SQLException {
        throw failure();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw failure();
    }

    @Override
    public PrintWriter getLogWriter() {
        return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
        // no pool to log
    }

    @Override
    public void setLoginTimeout(int seconds) {
        // no pool to log in
    }

    @Override
    public int getLoginTimeout() {
        return 0;
    }

    @Override
    public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException("no java.util.logging parent logger");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("Pool " + name + " cannot start, so it wraps no " + iface.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }

    @Override
    public String toString() {
        return "UnusableDataSource{" + name + "}";
    }
}
