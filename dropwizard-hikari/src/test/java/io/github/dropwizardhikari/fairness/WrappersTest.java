package io.github.dropwizardhikari.fairness;

import com.codahale.metrics.MetricRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Wrapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The generated wrappers against fakes of HikariCP's objects: every JDBC method, default methods included, reaches
 * the fake with the caller's arguments and answers what the fake answered, or the same wrapped when it leads back to
 * the connection; only the ways back, {@code unwrap} and {@code isWrapperFor} stay with the wrapper.
 */
class WrappersTest {
    private static final Set<Class<?>> LINKED = Set.of(Statement.class, PreparedStatement.class,
        CallableStatement.class, DatabaseMetaData.class, ResultSet.class);
    /** The methods the hand-written classes implement, by the interface they are checked on. */
    private static final Map<Class<?>, Set<String>> OWN = Map.of(Connection.class, Set.of("close", "abort", "unwrap",
        "isWrapperFor"), ResultSet.class, Set.of("getStatement", "unwrap", "isWrapperFor"));
    private static final Set<String> OWN_BY_LINKED = Set.of("getConnection", "unwrap", "isWrapperFor");

    private final FairBorrowGate gate = new FairBorrowGate("wrappers", 1, new MetricRegistry());

    @AfterEach
    void unregister() {
        gate.unregister();
    }

    @Test
    void everyConnectionMethodReachesHikarisConnection() throws Exception {
        Fake pooled = new Fake(false);
        GatedConnection connection = Wrappers.gated(pooled.of(Connection.class), gate);
        assertEveryMethodPassesOn(connection, Connection.class, pooled, connection);
    }

    @Test
    void everyMethodOfEveryLinkedObjectReachesHikarisObject() throws Exception {
        for (Class<?> type : LINKED) {
            Fake pooled = new Fake(false);
            GatedConnection connection = Wrappers.gated(new Fake(false).of(Connection.class), gate);
            Object linked = wrap(type, pooled.of(type), connection);
            assertEveryMethodPassesOn(linked, type, pooled, connection);
        }
    }

    @Test
    void nullStaysNullWhereAnObjectWouldBeWrapped() throws Exception {
        Fake pooled = new Fake(true);
        GatedConnection connection = Wrappers.gated(pooled.of(Connection.class), gate);
        assertThat(connection.createStatement()).isNull();
        assertThat(connection.getMetaData()).isNull();
        Statement statement = Wrappers.statement(pooled.of(Statement.class), connection);
        assertThat(statement.getResultSet()).isNull();
        assertThat(statement.getGeneratedKeys()).isNull();
        DatabaseMetaData metaData = Wrappers.metaData(pooled.of(DatabaseMetaData.class), connection);
        assertThat(metaData.getTables(null, null, null, null)).isNull();
        // a result set from metadata, whose driver has no statement for it
        assertThat(Wrappers.resultSet(pooled.of(ResultSet.class), (LinkedToGatedConnection<?>) metaData)
            .getStatement()).isNull();
    }

    @Test
    void whatTheDriverThrowsReachesTheCallerUnchanged() {
        SQLException thrown = new SQLException("broken", "08006");
        Connection failing = (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[]{Connection.class}, (proxy, method, args) -> {
                throw thrown;
            });
        GatedConnection connection = Wrappers.gated(failing, gate);
        assertThatThrownBy(() -> connection.prepareStatement("SELECT 1")).isSameAs(thrown);
        assertThatThrownBy(connection::beginRequest).isSameAs(thrown);
    }

    @Test
    void reflectionOnTheWrappersClassReachesTheWaysBack() throws Exception {
        GatedConnection connection = Wrappers.gated(new Fake(false).of(Connection.class), gate);
        Statement statement = connection.createStatement();
        assertThat(Modifier.isPublic(statement.getClass().getModifiers())).isTrue();
        assertThat(statement.getClass().getMethod("getConnection").invoke(statement)).isSameAs(connection);
        assertThat(connection.getClass().getMethod("isReadOnly").invoke(connection)).isEqualTo(true);
        assertThat(statement).hasToString("Linked{" + ((LinkedToGatedConnection<?>) statement).delegate + "}");
    }

    private static Object wrap(Class<?> type, Object pooled, GatedConnection connection) {
        if (type == Statement.class) {
            return Wrappers.statement((Statement) pooled, connection);
        } else if (type == PreparedStatement.class) {
            return Wrappers.preparedStatement((PreparedStatement) pooled, connection);
        } else if (type == CallableStatement.class) {
            return Wrappers.callableStatement((CallableStatement) pooled, connection);
        } else if (type == DatabaseMetaData.class) {
            return Wrappers.metaData((DatabaseMetaData) pooled, connection);
        }
        return Wrappers.resultSet((ResultSet) pooled,
            (LinkedToGatedConnection<?>) Wrappers.metaData(new Fake(false).of(DatabaseMetaData.class), connection));
    }

    private static void assertEveryMethodPassesOn(Object wrapper, Class<?> type, Fake pooled, GatedConnection connection)
        throws Exception {
        Set<String> own = OWN.getOrDefault(type, OWN_BY_LINKED);
        int checked = 0;
        for (Method method : type.getMethods()) {
            if (own.contains(method.getName()) || Modifier.isStatic(method.getModifiers())) {
                continue;
            }
            Object[] args = arguments(method);
            pooled.calls.clear();
            Object answer;
            try {
                answer = method.invoke(wrapper, args);
            } catch (InvocationTargetException e) {
                throw new AssertionError(type.getSimpleName() + "." + method.getName(), e.getCause());
            }
            assertThat(pooled.calls).as("%s.%s", type.getSimpleName(), method.getName()).hasSize(1);
            Call call = pooled.calls.get(0);
            assertThat(call.method.getName()).isEqualTo(method.getName());
            assertThat(call.method.getParameterTypes()).isEqualTo(method.getParameterTypes());
            assertThat(call.args == null ? new Object[0] : call.args).containsExactly(args);
            if (LINKED.contains(method.getReturnType())) {
                LinkedToGatedConnection<?> linked = (LinkedToGatedConnection<?>) answer;
                assertThat(linked.delegate).isSameAs(call.answer);
                assertThat(method.getReturnType().isInstance(linked)).isTrue();
                assertThat(linked.getConnection()).isSameAs(connection);
                if (answer instanceof ResultSet && wrapper instanceof Statement) {
                    assertThat(((ResultSet) answer).getStatement()).isSameAs(wrapper);
                } else if (answer instanceof ResultSet) {
                    // from metadata: the driver's statement, leading back to the gated connection too
                    assertThat(((ResultSet) answer).getStatement().getConnection()).isSameAs(connection);
                }
            } else if (method.getReturnType() != void.class) {
                assertThat(answer).as("%s.%s", type.getSimpleName(), method.getName()).isEqualTo(call.answer);
            }
            checked++;
        }
        assertThat(checked).isGreaterThan(type == Statement.class ? 40 : 20);
    }

    private static Object[] arguments(Method method) {
        Class<?>[] types = method.getParameterTypes();
        Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            args[i] = sample(types[i], i);
        }
        return args;
    }

    /** A value of {@code type} that tells one argument from another; {@code null} for classes of no interest. */
    private static Object sample(Class<?> type, int position) {
        if (type == int.class) {
            return 40 + position;
        } else if (type == long.class) {
            return 40L + position;
        } else if (type == boolean.class) {
            return true;
        } else if (type == short.class) {
            return (short) (40 + position);
        } else if (type == byte.class) {
            return (byte) (40 + position);
        } else if (type == double.class) {
            return 40.5 + position;
        } else if (type == float.class) {
            return 40.5f + position;
        } else if (type == String.class) {
            return "argument-" + position;
        } else if (type == Class.class) {
            return Integer.class;
        } else if (type.isArray()) {
            return Array.newInstance(type.getComponentType(), 1);
        } else if (type.isInterface()) {
            return new Fake(false).of(type);
        }
        return null;
    }

    private static final class Call {
        final Method method;
        final Object[] args;
        final Object answer;

        Call(Method method, Object[] args, Object answer) {
            this.method = method;
            this.args = args;
            this.answer = answer;
        }
    }

    /** Fakes that record each call and answer a fresh value of the return type (or null for linked types). */
    private static final class Fake {
        final List<Call> calls = new ArrayList<>();
        private final boolean nullLinked;

        Fake(boolean nullLinked) {
            this.nullLinked = nullLinked;
        }

        <T> T of(Class<T> type) {
            return type.cast(Proxy.newProxyInstance(WrappersTest.class.getClassLoader(), new Class<?>[]{type},
                (proxy, method, args) -> {
                    if (method.getDeclaringClass() == Object.class) {
                        return method.getName().equals("equals") ? proxy == args[0]
                            : method.getName().equals("hashCode") ? System.identityHashCode(proxy) : "Fake";
                    }
                    Class<?> returned = method.getReturnType();
                    Object answer = nullLinked && LINKED.contains(returned) ? null
                        : returned == void.class ? null : sample(returned, 7);
                    calls.add(new Call(method, args, answer));
                    return answer;
                }));
        }
    }
}
