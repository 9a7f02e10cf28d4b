package io.github.dropwizardhikari.faulthandling;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The H2 case of the issue: the session of a borrowed connection dies ({@code ABORT_SESSION}, error 90121, which
 * HikariCP does not know). HikariCP alone puts the dead connection back and, because it was used less than
 * 500 ms ago, hands it out again without validating it.
 */
class DeadSessionTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, sessions that die under a borrowed connection."
            + " WARN and ERROR lines in this log are expected.");
    }

    private static final String BYPASS_WINDOW = "com.zaxxer.hikari.aliveBypassWindowMs";

    // HikariCP skips validation for connections used within this window (500 ms by default); a longer one makes
    // both tests independent of how loaded the machine is
    @BeforeEach
    void longBypassWindow() {
        System.setProperty(BYPASS_WINDOW, "10000");
    }

    @AfterEach
    void defaultBypassWindow() {
        System.clearProperty(BYPASS_WINDOW);
    }

    private static HikariConfig config(String name) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        config.setMaximumPoolSize(1);
        config.setConnectionTimeout(1_000);
        return config;
    }

    private static int sessionId(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT SESSION_ID()")) {
            result.next();
            return result.getInt(1);
        }
    }

    /** @return the failures of the three borrows that follow the death of a borrowed connection's session */
    private static List<String> borrowsAfterTheSessionDies(DataSource pool, String name) throws SQLException {
        List<String> failures = new ArrayList<>();
        Connection borrowed = pool.getConnection();
        int session = sessionId(borrowed);
        try (Connection admin = DriverManager.getConnection("jdbc:h2:mem:" + name);
             Statement statement = admin.createStatement()) {
            statement.execute("CALL ABORT_SESSION(" + session + ")");
        }
        assertThatThrownBy(() -> sessionId(borrowed)).isInstanceOf(SQLException.class)
            .satisfies(e -> assertThat(((SQLException) e).getErrorCode()).isEqualTo(90121));
        try {
            borrowed.close();
        } catch (SQLException e) {
            failures.add("close: " + e.getSQLState());
        }
        for (int i = 0; i < 3; i++) {
            try (Connection next = pool.getConnection()) {
                sessionId(next);
            } catch (SQLException e) {
                failures.add(e.getSQLState());
            }
        }
        return failures;
    }

    @Test
    void hikariCpAloneHandsTheDeadConnectionOutAgain() throws SQLException {
        try (HikariDataSource pool = new HikariDataSource(config("dead-plain"))) {
            assertThat(borrowsAfterTheSessionDies(pool, "dead-plain")).contains("close: 90121", "90121");
        }
    }

    @Test
    void theFaultHandlingNeverHandsItOutAgain() throws SQLException {
        // no failover eviction, no recovery probe: the connection-loss override alone must do it
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:dead-bundle;DB_CLOSE_DELAY=-1");
        factory.setMinSize(1);
        factory.setMaxSize(1);
        factory.setMaxWaitForConnection(Duration.seconds(1));
        factory.setExtensions(List.of(TestPools.faultHandling(0)));
        ManagedHikariDataSource pool = (ManagedHikariDataSource) factory.build(new MetricRegistry(), "dead-bundle");
        try {
            assertThat(borrowsAfterTheSessionDies(pool, "dead-bundle")).isEmpty();
        } finally {
            pool.stop();
        }
    }
}
