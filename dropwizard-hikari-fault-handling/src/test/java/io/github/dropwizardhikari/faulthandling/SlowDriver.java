package io.github.dropwizardhikari.faulthandling;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A JDBC driver for {@code jdbc:slow:<h2 url>} that opens real H2 connections, each after a delay the test sets, as
 * a database that takes its time to accept a connection would.
 */
public final class SlowDriver extends H2WrappingDriver {
    public static final String PREFIX = "jdbc:slow:";
    private static final AtomicLong DELAY_MILLIS = new AtomicLong();

    static {
        try {
            DriverManager.registerDriver(new SlowDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public SlowDriver() {
        super(PREFIX);
    }

    public static String url(String database) {
        return url(PREFIX, database);
    }

    public static void delay(long millis) {
        DELAY_MILLIS.set(millis);
    }

    @Override
    protected void beforeConnect() throws SQLException {
        try {
            TimeUnit.MILLISECONDS.sleep(DELAY_MILLIS.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while connecting", "08001", e);
        }
    }
}
