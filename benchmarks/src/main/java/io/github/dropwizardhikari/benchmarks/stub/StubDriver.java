package io.github.dropwizardhikari.benchmarks.stub;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * A JDBC driver for {@code jdbc:stub:} whose operations do nothing, so a benchmark measures the pool alone.
 *
 * <p>The objects are {@link Proxy} instances answering from a switch on the method name. That dispatch costs the
 * same few nanoseconds under every pool; it is part of every absolute figure and of none of the differences.</p>
 */
public final class StubDriver implements Driver {
    public static final String URL = "jdbc:stub:pool-only";

    static {
        try {
            DriverManager.registerDriver(new StubDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Makes sure the driver is registered. */
    public static void register() {
        // the static initializer did the work
    }

    @Override
    public Connection connect(String url, Properties info) {
        return acceptsURL(url) ? proxy(Connection.class, new ConnectionHandler()) : null;
    }

    @Override
    public boolean acceptsURL(String url) {
        return url != null && url.startsWith("jdbc:stub:");
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

    static <T> T proxy(Class<T> type, InvocationHandler handler) {
        return type.cast(Proxy.newProxyInstance(StubDriver.class.getClassLoader(), new Class<?>[] {type}, handler));
    }

    /** The zero of a method's return type, for every method a stub does not answer itself. */
    static Object nothing(Method method) {
        Class<?> type = method.getReturnType();
        if (type == boolean.class) {
            return false;
        }
        if (type == int.class) {
            return 0;
        }
        if (type == long.class) {
            return 0L;
        }
        if (type == double.class) {
            return 0.0;
        }
        if (type == float.class) {
            return 0.0f;
        }
        if (type == short.class) {
            return (short) 0;
        }
        if (type == byte.class) {
            return (byte) 0;
        }
        return null;
    }

    private static final class ConnectionHandler implements InvocationHandler {
        private boolean autoCommit = true;
        private boolean readOnly;
        private int isolation = Connection.TRANSACTION_READ_COMMITTED;
        private boolean closed;

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) {
            switch (method.getName()) {
                case "prepareStatement":
                    return proxy(PreparedStatement.class, new StatementHandler());
                case "createStatement":
                    return proxy(Statement.class, new StatementHandler());
                case "isValid":
                    return !closed;
                case "isClosed":
                    return closed;
                case "close":
                case "abort":
                    closed = true;
                    return null;
                case "getAutoCommit":
                    return autoCommit;
                case "setAutoCommit":
                    autoCommit = (Boolean) args[0];
                    return null;
                case "isReadOnly":
                    return readOnly;
                case "setReadOnly":
                    readOnly = (Boolean) args[0];
                    return null;
                case "getTransactionIsolation":
                    return isolation;
                case "setTransactionIsolation":
                    isolation = (Integer) args[0];
                    return null;
                case "isWrapperFor":
                    return false;
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "equals":
                    return proxy == args[0];
                case "toString":
                    return "StubConnection";
                default:
                    return nothing(method);
            }
        }
    }

    private static final class StatementHandler implements InvocationHandler {
        @Override
        public Object invoke(Object proxy, Method method, Object[] args) {
            switch (method.getName()) {
                case "executeQuery":
                    return proxy(ResultSet.class, new ResultSetHandler());
                case "execute":
                    return true;
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "equals":
                    return proxy == args[0];
                default:
                    return nothing(method);
            }
        }
    }

    /** One row, like the benchmark's query for one id. */
    private static final class ResultSetHandler implements InvocationHandler {
        private int position;

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) {
            switch (method.getName()) {
                case "next":
                    return ++position == 1;
                case "getInt":
                    return 1;
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "equals":
                    return proxy == args[0];
                default:
                    return nothing(method);
            }
        }
    }
}
