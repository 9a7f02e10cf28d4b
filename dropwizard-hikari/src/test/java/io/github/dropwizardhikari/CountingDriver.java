package io.github.dropwizardhikari;

import io.github.dropwizardhikari.H2WrappingDriver;

import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A JDBC driver for {@code jdbc:counting:<h2 url>} that opens real H2 connections and counts them, so tests can
 * see exactly when the pool connects.
 */
public final class CountingDriver extends H2WrappingDriver {
    public static final String PREFIX = "jdbc:counting:";
    private static final AtomicInteger OPENED = new AtomicInteger();

    static {
        try {
            DriverManager.registerDriver(new CountingDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public CountingDriver() {
        super(PREFIX);
    }

    /** @return a URL of this driver for a private in-memory H2 database */
    public static String url(String database) {
        return url(PREFIX, database);
    }

    public static int opened() {
        return OPENED.get();
    }

    @Override
    protected void beforeConnect() {
        OPENED.incrementAndGet();
    }
}
