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
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import net.bytebuddy.matcher.ElementMatcher;
import org.jspecify.annotations.Nullable;

import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;

import static net.bytebuddy.matcher.ElementMatchers.isDeclaredBy;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.returns;

/**
 * The wrappers' classes, generated once per class loader by Byte Buddy: for {@link Connection} a final subclass of
 * {@link GatedConnection}, for each JDBC interface that leads back to the connection one of
 * {@link LinkedToGatedConnection}. Every JDBC method the hand-written class does not implement (default methods
 * included) calls HikariCP's object directly, and one that returns a statement, result set or metadata wraps it
 * through the link method below for its type. The classes are defined in this package, beside the classes they
 * extend, each with a generated {@link Factory} whose {@code new} the JIT inlines where the wrapper is made.
 */
final class Wrappers {
    private static final Factory CONNECTION = generate(TypeDescription.ForLoadedType.of(GatedConnection.class),
        Connection.class);
    private static final Factory STATEMENT = linked(Statement.class);
    private static final Factory PREPARED_STATEMENT = linked(PreparedStatement.class);
    private static final Factory CALLABLE_STATEMENT = linked(CallableStatement.class);
    private static final Factory METADATA = linked(DatabaseMetaData.class);
    private static final Factory RESULT_SET = linked(ResultSet.class);

    private Wrappers() {
    }

    /** Generates the classes, once: the gate calls it when built, so that no borrow waits for it (half a second). */
    static void load() {
        // initializing this class is the work
    }

    static GatedConnection gated(Connection pooled, FairBorrowGate gate) {
        return (GatedConnection) CONNECTION.wrap(pooled, gate, null);
    }

    static @Nullable Statement statement(@Nullable Statement delegate, GatedConnection connection) {
        return delegate == null ? null : (Statement) STATEMENT.wrap(delegate, connection, null);
    }

    static @Nullable PreparedStatement preparedStatement(@Nullable PreparedStatement delegate,
                                                         GatedConnection connection) {
        return delegate == null ? null : (PreparedStatement) PREPARED_STATEMENT.wrap(delegate, connection, null);
    }

    static @Nullable CallableStatement callableStatement(@Nullable CallableStatement delegate,
                                                         GatedConnection connection) {
        return delegate == null ? null : (CallableStatement) CALLABLE_STATEMENT.wrap(delegate, connection, null);
    }

    static @Nullable DatabaseMetaData metaData(@Nullable DatabaseMetaData delegate, GatedConnection connection) {
        return delegate == null ? null : (DatabaseMetaData) METADATA.wrap(delegate, connection, null);
    }

    /** A result set made by a statement leads back to that statement; one from metadata through its own. */
    static @Nullable ResultSet resultSet(@Nullable ResultSet delegate, LinkedToGatedConnection<?> from) {
        return delegate == null ? null
            : (ResultSet) RESULT_SET.wrap(delegate, from.connection, from instanceof Statement ? from : null);
    }

    /** Makes one wrapper: its generated class's constructor, called with the same arguments. */
    interface Factory {
        Object wrap(Object delegate, Object from, @Nullable Object statement);
    }

    private static Factory linked(Class<?> type) {
        return generate(TypeDescription.Generic.Builder.parameterizedType(LinkedToGatedConnection.class, type).build(),
            type);
    }

    /**
     * @return the factory of a final subclass of {@code base} implementing {@code type}, whose every method
     * {@code base} leaves to the interface calls the field {@code delegate}, wrapping what a link method wraps
     */
    private static Factory generate(TypeDefinition base, Class<?> type) {
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
        Class<?> generated = load(builder);
        MethodCall construct = MethodCall.construct(generated.getDeclaredConstructors()[0]);
        Class<?> factory = load(new ByteBuddy(ClassFileVersion.JAVA_V17)
            .subclass(Factory.class)
            .name(generated.getName() + "$Factory")
            .modifiers(Visibility.PUBLIC, TypeManifestation.FINAL)
            .method(isDeclaredBy(Factory.class))
            .intercept((generated.getSuperclass() == GatedConnection.class ? construct.withArgument(0, 1)
                : construct.withAllArguments()).withAssigner(Assigner.DEFAULT, Assigner.Typing.DYNAMIC)));
        try {
            return (Factory) factory.getConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot make " + factory, e);
        }
    }

    private static Class<?> load(DynamicType.Builder<?> builder) {
        return builder.make()
            .load(Wrappers.class.getClassLoader(), ClassLoadingStrategy.UsingLookup.of(MethodHandles.lookup()))
            .getLoaded();
    }
}
