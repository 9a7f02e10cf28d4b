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
 * A statement, result set or metadata of a {@link GatedConnection} whose {@code getConnection()} (directly or via
 * {@code getStatement()}) answers the gated connection, as HikariCP's proxies do for theirs. Hibernate and some
 * drivers' helpers close the connection they reach that way; were it HikariCP's, its place at the gate would leak.
 * Every other call goes to HikariCP's object unchanged.
 */
final class LinkedToGatedConnection implements InvocationHandler {
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

    /** @param statement for a result set, the wrapped statement that made it; otherwise {@code null} */
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

    /** Found once: {@code Proxy.newProxyInstance} looks up the class and checks access on every call. */
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
