package io.github.dropwizardhikari.fairborrowing;

import com.zaxxer.hikari.HikariDataSource;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.h2.jdbc.JdbcConnection;
import org.h2.jdbc.JdbcPreparedStatement;
import org.h2.jdbc.JdbcStatement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static io.github.dropwizardhikari.fairborrowing.FairPools.hikari;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gate wraps nothing: the connection lent is the core's, which it lends while an extension listens for returns
 * (a {@code java.lang.reflect.Proxy} of HikariCP's), and every statement, result set and metadata object it leads to
 * is the very object HikariCP hands out without the extension, so every JDBC call, default methods, {@code unwrap}
 * and what the driver throws included, is HikariCP's and the driver's own.
 */
class NoWrappingTest {
    private final FairPools pools = new FairPools();

    @AfterEach
    void stopAll() {
        pools.close();
    }

    @Test
    void everyJdbcObjectIsOfTheClassHikariHandsOutWithoutTheGate() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("own-classes", 2, 1_000);
        HikariDataSource hikari = hikari(dataSource);
        try (Connection gated = dataSource.getConnection(); Connection direct = hikari.getConnection()) {
            List<Class<?>> throughTheGate = classesOf(gated);
            List<Class<?>> hikarisOwn = classesOf(direct);
            assertThat(Proxy.isProxyClass(throughTheGate.get(0))).as("the core's connection").isTrue();
            assertThat(hikarisOwn.get(0).getPackageName()).isEqualTo("com.zaxxer.hikari.pool");
            assertThat(throughTheGate.subList(1, throughTheGate.size()))
                .isEqualTo(hikarisOwn.subList(1, hikarisOwn.size()));
        }
    }

    /** The class of each JDBC object reached from {@code connection}, closing each one. */
    private static List<Class<?>> classesOf(Connection connection) throws SQLException {
        List<Class<?>> classes = new ArrayList<>();
        classes.add(connection.getClass());
        try (Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT 1");
             PreparedStatement prepared = connection.prepareStatement("SELECT 1");
             CallableStatement callable = connection.prepareCall("CALL 1")) {
            DatabaseMetaData metaData = connection.getMetaData();
            classes.addAll(List.of(statement.getClass(), rows.getClass(), prepared.getClass(), callable.getClass(),
                metaData.getClass()));
            try (ResultSet tables = metaData.getTables(null, null, "%", null)) {
                classes.add(tables.getClass());
            }
        }
        return classes;
    }

    @Test
    void statementsResultSetsAndMetadataLeadBackToTheBorrowedConnection() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("identity", 1, 1_000);
        try (Connection connection = dataSource.getConnection();
             Statement statement = connection.createStatement();
             PreparedStatement prepared = connection.prepareStatement("SELECT 1");
             ResultSet rows = prepared.executeQuery()) {
            // HikariCP's connection, behind the core's: the same driver connection
            JdbcConnection driver = connection.unwrap(JdbcConnection.class);
            assertThat(statement.getConnection().unwrap(JdbcConnection.class)).isSameAs(driver);
            assertThat(prepared.getConnection()).isSameAs(statement.getConnection());
            assertThat(rows.getStatement()).isSameAs(prepared);
            assertThat(rows.next()).isTrue();
            assertThat(rows.getInt(1)).isEqualTo(1);
            assertThat(connection.getMetaData().getConnection()).isSameAs(statement.getConnection());
            try (ResultSet generated = statement.executeQuery("SELECT 2")) {
                assertThat(generated.getStatement()).isSameAs(statement);
            }
            assertThat(statement.unwrap(JdbcStatement.class)).isInstanceOf(JdbcStatement.class);
            assertThat(prepared.isWrapperFor(JdbcPreparedStatement.class)).isTrue();
            assertThat(statement).isEqualTo(statement).isNotEqualTo(prepared);
        }
    }

    /** HikariCP's own unwrap: to the driver's connection, for any interface the driver's connection implements. */
    @Test
    void unwrapReachesTheDriversConnection() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("unwrapped", 1, 1_000);
        try (Connection connection = dataSource.getConnection()) {
            assertThat(connection.isWrapperFor(JdbcConnection.class)).isTrue();
            assertThat(connection.unwrap(JdbcConnection.class)).isInstanceOf(JdbcConnection.class);
            assertThat(connection.unwrap(Connection.class)).isSameAs(connection.unwrap(JdbcConnection.class));
            assertThat(connection.isWrapperFor(String.class)).isFalse();
        }
    }

    @Test
    void whatTheDriverThrowsReachesTheCallerAsWithoutTheGate() throws Exception {
        ManagedHikariDataSource dataSource = pools.build("throws", 2, 1_000);
        HikariDataSource hikari = hikari(dataSource);
        try (Connection gated = dataSource.getConnection(); Connection direct = hikari.getConnection()) {
            SQLException throughGate = catchThrown(gated);
            SQLException withoutGate = catchThrown(direct);
            assertThat((Throwable) throughGate).isExactlyInstanceOf(withoutGate.getClass())
                .hasMessage(withoutGate.getMessage());
            assertThat(throughGate.getSQLState()).isEqualTo(withoutGate.getSQLState());
            assertThat(gated.isValid(1)).isTrue();
        }
    }

    private static SQLException catchThrown(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.executeQuery("SELECT * FROM no_such_table");
        } catch (SQLException e) {
            return e;
        }
        throw new AssertionError("the query of a missing table succeeded");
    }
}
