package io.github.dropwizardhikari.fairness;

import org.jspecify.annotations.Nullable;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Wrapper;

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
 * metadata it returns is wrapped in turn. Every other call goes to HikariCP's object unchanged, through the subclass
 * {@link Wrappers} generates for each JDBC interface, and {@code unwrap} reaches the driver's. Equality is identity,
 * as {@link Object}'s. It is public, as the generated classes are, so that code calling a JDBC method found on the
 * object's class by reflection may call those declared here too.</p>
 */
public abstract class LinkedToGatedConnection<D extends Wrapper> implements Wrapper {
    /** HikariCP's object, of the generated subclass's interface; the subclass calls it. */
    final D delegate;
    final GatedConnection connection;
    /** For a result set, the wrapped statement that made it; otherwise {@code null}. */
    private final @Nullable Statement statement;

    LinkedToGatedConnection(D delegate, GatedConnection connection, @Nullable Statement statement) {
        this.delegate = delegate;
        this.connection = connection;
        this.statement = statement;
    }

    /** {@code Statement.getConnection()} and {@code DatabaseMetaData.getConnection()}. */
    public final Connection getConnection() {
        return connection;
    }

    /** {@code ResultSet.getStatement()}: the statement that made it, or the driver's, wrapped. */
    public final @Nullable Statement getStatement() throws SQLException {
        return statement != null ? statement : Wrappers.statement(((ResultSet) delegate).getStatement(), connection);
    }

    @Override
    public final <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : delegate.unwrap(iface);
    }

    @Override
    public final boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || delegate.isWrapperFor(iface);
    }

    @Override
    public final String toString() {
        return "Linked{" + delegate + "}";
    }
}
