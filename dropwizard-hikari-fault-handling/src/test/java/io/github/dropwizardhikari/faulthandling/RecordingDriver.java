package io.github.dropwizardhikari.faulthandling;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A JDBC driver for {@code jdbc:recording:<h2 url>}, registered with {@code DriverManager}, that records which
 * instance connected and with which properties. {@link Unregistered} is the same driver never registered.
 */
public class RecordingDriver extends H2WrappingDriver {
    public static final String PREFIX = "jdbc:recording:";
    static final Queue<Connect> CONNECTS = new ConcurrentLinkedQueue<>();

    record Connect(RecordingDriver driver, Properties properties) {
    }

    static {
        try {
            DriverManager.registerDriver(new RecordingDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public RecordingDriver() {
        this(PREFIX);
    }

    RecordingDriver(String prefix) {
        super(prefix);
    }

    public static String url(String database) {
        return url(PREFIX, database);
    }

    @Override
    protected void beforeConnect() {
        // the properties are recorded by connected()
    }

    @Override
    protected Connection connected(Connection connection, Properties info) {
        Properties copy = new Properties();
        copy.putAll(info);
        CONNECTS.add(new Connect(this, copy));
        return connection;
    }

    /** Never registered with {@code DriverManager}: HikariCP instantiates it when a block names its class. */
    public static final class Unregistered extends RecordingDriver {
        public static final String PREFIX = "jdbc:unregistered:";

        public Unregistered() {
            super(PREFIX);
        }

        public static String url(String database) {
            return url(PREFIX, database);
        }
    }
}
