package io.github.dropwizardhikari;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A JDBC driver for {@code jdbc:closed-under-it:<h2 url>} that opens real H2 connections while the "database" is up
 * and, while it is down, fails each attempt with the follow-up error a driver raises for a call on a connection that
 * something else has closed during its setup (pgJDBC: {@code This connection has been closed.}, SQLState 08003).
 */
public final class ClosedUnderItDriver extends H2WrappingDriver {
    public static final String PREFIX = "jdbc:closed-under-it:";
    private static final AtomicBoolean DOWN = new AtomicBoolean();

    static {
        try {
            DriverManager.registerDriver(new ClosedUnderItDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public ClosedUnderItDriver() {
        super(PREFIX);
    }

    public static String url(String database) {
        return url(PREFIX, database);
    }

    public static void down(boolean isDown) {
        DOWN.set(isDown);
    }

    @Override
    protected void beforeConnect() throws SQLException {
        if (DOWN.get()) {
            throw new SQLException("This connection has been closed.", "08003");
        }
    }
}
