package io.github.dropwizardhikari.fairness;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.ClassFileVersion;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.modifier.TypeManifestation;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.description.type.TypeDefinition;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.implementation.MethodCall;
import net.bytebuddy.matcher.ElementMatcher;
import org.jspecify.annotations.Nullable;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Wrapper;

import static net.bytebuddy.matcher.ElementMatchers.isDeclaredBy;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.returns;

/**
 * The wrappers' classes, generated once per class loader by Byte Buddy: for {@link Connection} a final subclass of
 * {@link GatedConnection}, for each JDBC interface that leads back to the connection one of
 * {@link LinkedToGatedConnection}. Every JDBC method the hand-written class does not implement (default methods
 * included) calls HikariCP's object directly, and one that returns a statement, result set or metadata wraps it
 * through the link method below for its type. The classes are defined in this package, beside the classes they
 * extend; their constructors are constants, so the JIT compiles each wrapping to a plain allocation.
 */
final class Wrappers {
    private static final MethodHandle CONNECTION = generate(TypeDescription.ForLoadedType.of(GatedConnection.class),
        Connection.class,
        MethodType.methodType(GatedConnection.class, Connection.class, FairBorrowGate.class));
    private static final MethodHandle STATEMENT = linked(Statement.class);
    private static final MethodHandle PREPARED_STATEMENT = linked(PreparedStatement.class);
    private static final MethodHandle CALLABLE_STATEMENT = linked(CallableStatement.class);
    private static final MethodHandle METADATA = linked(DatabaseMetaData.class);
    private static final MethodHandle RESULT_SET = linked(ResultSet.class);

    private Wrappers() {
    }

    /** Generates the classes, once: the gate calls it when built, so that no borrow waits for it (half a second). */
    static void load() {
        // initializing this class is the work
    }

    static GatedConnection gated(Connection pooled, FairBorrowGate gate) {
        try {
            return (GatedConnection) CONNECTION.invokeExact(pooled, gate);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot wrap " + pooled, e);
        }
    }

    static @Nullable Statement statement(@Nullable Statement delegate, GatedConnection connection) {
        return (Statement) link(STATEMENT, delegate, connection, null);
    }

    static @Nullable PreparedStatement preparedStatement(@Nullable PreparedStatement delegate,
                                                         GatedConnection connection) {
        return (PreparedStatement) link(PREPARED_STATEMENT, delegate, connection, null);
    }

    static @Nullable CallableStatement callableStatement(@Nullable CallableStatement delegate,
                                                         GatedConnection connection) {
        return (CallableStatement) link(CALLABLE_STATEMENT, delegate, connection, null);
    }

    static @Nullable DatabaseMetaData metaData(@Nullable DatabaseMetaData delegate, GatedConnection connection) {
        return (DatabaseMetaData) link(METADATA, delegate, connection, null);
    }

    /** A result set made by a statement leads back to that statement; one from metadata through its own. */
    static @Nullable ResultSet resultSet(@Nullable ResultSet delegate, LinkedToGatedConnection<?> from) {
        return (ResultSet) link(RESULT_SET, delegate, from.connection, from instanceof Statement ? (Statement) from
            : null);
    }

    private static @Nullable Object link(MethodHandle constructor, @Nullable Wrapper delegate,
                                         GatedConnection connection, @Nullable Statement statement) {
        if (delegate == null) {
            return null;
        }
        try {
            return (LinkedToGatedConnection<?>) constructor.invokeExact(delegate, connection, statement);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot wrap " + delegate, e);
        }
    }

    private static MethodHandle linked(Class<? extends Wrapper> type) {
        return generate(TypeDescription.Generic.Builder.parameterizedType(LinkedToGatedConnection.class, type).build(),
            type, MethodType.methodType(LinkedToGatedConnection.class, Wrapper.class, GatedConnection.class,
                Statement.class));
    }

    /**
     * @return the constructor of a final subclass of {@code base} implementing {@code type}, whose every method
     * {@code base} leaves to the interface calls the field {@code delegate}, wrapping what a link method wraps
     */
    private static MethodHandle generate(TypeDefinition base, Class<?> type, MethodType constructor) {
        MethodCall delegated = MethodCall.invokeSelf().onField("delegate").withAllArguments();
        ElementMatcher.Junction<MethodDescription> passedOn = isDeclaredBy(isInterface());
        DynamicType.Builder<?> builder = new ByteBuddy(ClassFileVersion.JAVA_V17)
            .subclass(base)
            .implement(type)
            .name(base.asErasure().getName() + "$" + type.getSimpleName())
            .modifiers(Visibility.PUBLIC, TypeManifestation.FINAL)
            .method(passedOn).intercept(delegated);
        // the link methods: each takes HikariCP's object, and where it came from, and returns it wrapped
        for (Method link : Wrappers.class.getDeclaredMethods()) {
            if (link.getParameterCount() == 2 && link.getReturnType() == link.getParameterTypes()[0]) {
                builder = builder.method(passedOn.and(returns(link.getReturnType())))
                    .intercept(MethodCall.invoke(link).withMethodCall(delegated).withThis());
            }
        }
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        Class<?> generated = builder.make()
            .load(Wrappers.class.getClassLoader(), ClassLoadingStrategy.UsingLookup.of(lookup))
            .getLoaded();
        try {
            MethodType declared = constructor.changeReturnType(void.class).changeParameterType(0, type);
            return lookup.findConstructor(generated, declared).asType(constructor);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no constructor in " + generated, e);
        }
    }
}
