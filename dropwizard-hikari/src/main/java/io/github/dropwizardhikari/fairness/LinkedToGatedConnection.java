package io.github.dropwizardhikari.fairness;

import org.jspecify.annotations.Nullable;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * A statement, result set or database metadata handed out by a {@link GatedConnection}, whose way back to its
 * connection leads to the {@link GatedConnection} and not to HikariCP's connection inside it.
 *
 * <p>JDBC code may close the connection it reaches through {@code statement.getConnection()},
 * {@code resultSet.getStatement().getConnection()} or {@code metaData.getConnection()} instead of the one it
 * borrowed (Hibernate and some drivers' helpers do). Were that HikariCP's connection, the connection would go back
 * to HikariCP while its place at the gate stayed taken, and the pool would lose a connection until restart. So,
 * as HikariCP's own proxies do for its connection, every object that leads back is wrapped: {@code getConnection()}
 * answers the gated connection, {@code getStatement()} the wrapped statement, and each statement, result set or
 * metadata it returns is wrapped in turn. Every other call goes to HikariCP's object unchanged, and
 * {@code unwrap} reaches the driver's.</p>
 */
final class LinkedToGatedConnection implements InvocationHandler {
    /** The JDBC types with a way back to their connection, directly or through their statement. */
    private static final Set<Class<?>> LINKED = Set.of(Statement.class, PreparedStatement.class,
        CallableStatement.class, ResultSet.class, DatabaseMetaData.class);
    private static final Map<Class<?>, MethodHandle> CONSTRUCTORS = constructors();

    private final Object delegate;
    private final GatedConnection connection;
    private final @Nullable Statement statement;

    private LinkedToGatedConnection(Object delegate, GatedConnection connection, @Nullable Statement statement) {
        this.delegate = delegate;
        this.connection = connection;
        this.statement = statement;
    }

    /**
     * @param delegate   HikariCP's object, or {@code null}
     * @param type       the JDBC interface the caller asked for
     * @param connection the gated connection it came from
     * @param statement  for a result set, the wrapped statement that made it; otherwise {@code null}
     * @return the object, leading back to {@code connection}; {@code null} for {@code null}
     */
    static <T> @Nullable T link(@Nullable T delegate, Class<T> type, GatedConnection connection,
                                @Nullable Statement statement) {
        if (delegate == null) {
            return null;
        }
        try {
            return type.cast((Object) CONSTRUCTORS.get(type).invokeExact(
                (InvocationHandler) new LinkedToGatedConnection(delegate, connection, statement)));
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot wrap a " + type.getSimpleName(), e);
        }
    }

    /**
     * The proxy class's constructor for each linked type, found once: {@code Proxy.newProxyInstance} looks the
     * proxy class up and checks access on every call, and a statement cycle makes two proxies.
     */
    private static Map<Class<?>, MethodHandle> constructors() {
        Map<Class<?>, MethodHandle> constructors = new HashMap<>();
        for (Class<?> type : LINKED) {
            Class<?> proxyClass = Proxy.newProxyInstance(LinkedToGatedConnection.class.getClassLoader(),
                new Class<?>[]{type}, (proxy, method, args) -> null).getClass();
            try {
                constructors.put(type, MethodHandles.publicLookup()
                    .findConstructor(proxyClass, MethodType.methodType(void.class, InvocationHandler.class))
                    .asType(MethodType.methodType(Object.class, InvocationHandler.class)));
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
        return Map.copyOf(constructors);
    }

    @Override
    public @Nullable Object invoke(Object proxy, Method method, Object @Nullable [] args) throws Throwable {
        String name = method.getName();
        int arity = method.getParameterCount();
        if (method.getDeclaringClass() == Object.class) {
            return objectMethod(proxy, name, args);
        }
        if (arity == 0 && "getConnection".equals(name) && method.getReturnType() == Connection.class) {
            return connection;
        }
        if (arity == 0 && "getStatement".equals(name) && delegate instanceof ResultSet) {
            return statement != null ? statement : link((Statement) call(method, args), Statement.class, connection,
                null);
        }
        if (arity == 1 && args != null && args[0] instanceof Class<?> && ("unwrap".equals(name)
            || "isWrapperFor".equals(name))) {
            Class<?> type = (Class<?>) args[0];
            if (type.isInstance(proxy)) {
                return "unwrap".equals(name) ? proxy : Boolean.TRUE;
            }
            return call(method, args);
        }
        Object result = call(method, args);
        Class<?> returned = method.getReturnType();
        if (result != null && isLinked(returned)) {
            // a result set made by a statement leads back to that statement; any other leads back through its own
            Statement owner = returned == ResultSet.class && proxy instanceof Statement ? (Statement) proxy : null;
            return linkAs(result, returned, connection, owner);
        }
        return result;
    }

    // identity comparisons: this runs on every call through a statement or a result set
    private static boolean isLinked(Class<?> type) {
        return type == ResultSet.class || type == PreparedStatement.class || type == Statement.class
            || type == CallableStatement.class || type == DatabaseMetaData.class;
    }

    private @Nullable Object call(Method method, Object @Nullable [] args) throws Throwable {
        try {
            return method.invoke(delegate, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private Object objectMethod(Object proxy, String name, Object @Nullable [] args) {
        switch (name) {
            case "equals":
                return args != null && proxy == args[0];
            case "hashCode":
                return System.identityHashCode(proxy);
            default:
                return "Linked{" + delegate + "}";
        }
    }

    private static <T> @Nullable T linkAs(Object result, Class<T> type, GatedConnection connection,
                                          @Nullable Statement owner) {
        return link(type.cast(result), type, connection, owner);
    }
}
