package io.github.dropwizardhikari.faulthandling;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A JDBC driver for {@code jdbc:outage:<h2 url>} that opens real H2 connections while the "database" is up and
 * refuses them, as a stopped server would, while it is down; it counts every attempt.
 */
public final class OutageDriver extends H2WrappingDriver {
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

    public OutageDriver() {
        super(PREFIX);
    }

    public static String url(String database) {
        return url(PREFIX, database);
    }

    public static void down(boolean isDown) {
        DOWN.set(isDown);
    }

    public static int attempts() {
        return ATTEMPTS.get();
    }

    @Override
    protected void beforeConnect() throws SQLException {
        ATTEMPTS.incrementAndGet();
        if (DOWN.get()) {
            throw new SQLException("Connection refused", "08001");
        }
    }
}
