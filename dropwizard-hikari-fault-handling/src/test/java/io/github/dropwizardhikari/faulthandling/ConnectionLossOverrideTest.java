package io.github.dropwizardhikari.faulthandling;

import com.zaxxer.hikari.SQLExceptionOverride;
import com.zaxxer.hikari.SQLExceptionOverride.Override;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.sql.SQLException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ConnectionLossOverrideTest {
    private static List<String> none() {
        return List.of();
    }

    private static SQLException error(String sqlState, int code) {
        return new SQLException("test error", sqlState, code);
    }

    private static final String POSTGRESQL = "jdbc:postgresql://db/orders";
    private static final String MARIADB = "jdbc:mariadb://db/orders";
    private static final String H2 = "jdbc:h2:mem:orders";

    private static ConnectionLossOverride override(String url, List<String> evictOn) {
        return new ConnectionLossOverride(null, ConnectionErrors.of(url, null, null), evictOn, null);
    }

    private static ConnectionLossOverride override(List<String> evictOn) {
        return override(POSTGRESQL, evictOn);
    }

    @ParameterizedTest(name = "{0} / {1} on {3}: {2}")
    @CsvSource({
        // PostgreSQL
        "08006, 0, connection failure, jdbc:postgresql://db/orders",
        "57P01, 0, terminated by pg_terminate_backend or a fast shutdown, jdbc:postgresql://db/orders",
        "57P02, 0, crash shutdown, jdbc:postgresql://db/orders",
        "57P05, 0, idle_session_timeout, jdbc:postgresql://db/orders",
        "25P03, 0, idle_in_transaction_session_timeout, jdbc:postgresql://db/orders",
        // MariaDB / MySQL
        "HY000, 2006, server has gone away, jdbc:mariadb://db/orders",
        "HY000, 2013, lost connection during query, jdbc:mysql://db/orders",
        "70100, 1927, connection killed, jdbc:mariadb://db/orders",
        "08S01, 1053, server shutdown in progress, jdbc:mariadb://db/orders",
        "HY000, 4031, disconnected for inactivity, jdbc:mariadb://db/orders",
        // H2
        "90121, 90121, database closed (session aborted), jdbc:h2:mem:orders",
        "90067, 90067, connection broken, jdbc:h2:mem:orders",
        "90098, 90098, database is closed, jdbc:h2:mem:orders",
        // the standard's connection-exception class, whatever the driver
        "08S01, 0, communication link failure, jdbc:stub:orders",
    })
    void evictsOnConnectionLoss(String sqlState, int code, String what, String url) {
        ConnectionLossOverride override = override(url, none());
        assertThat(override.adjudicate(error(sqlState, code))).isEqualTo(Override.MUST_EVICT);
    }

    /** A vendor's state or code counts only from its own driver: elsewhere it means something else, or nothing. */
    @ParameterizedTest(name = "{0} / {1} on {2}")
    @CsvSource({
        "57P01, 0, jdbc:mariadb://db/orders",
        "57P05, 0, jdbc:h2:mem:orders",
        "HY000, 2013, jdbc:postgresql://db/orders",
        "HY000, 4031, jdbc:h2:mem:orders",
        "90121, 90121, jdbc:postgresql://db/orders",
        "XX000, 1927, jdbc:stub:orders",
    })
    void vendorCodesCountOnlyFromTheirOwnDriver(String sqlState, int code, String url) {
        ConnectionLossOverride override = override(url, none());
        assertThat(override.adjudicate(error(sqlState, code))).isEqualTo(Override.CONTINUE_EVICT);
    }

    @Test
    void theDriverIsToldByItsClassNamesToo() {
        assertThat(ConnectionErrors.of(null, "org.mariadb.jdbc.Driver", null).isConnectionLoss(error("HY000", 2013)))
            .isTrue();
        assertThat(ConnectionErrors.of(null, null, "org.postgresql.ds.PGSimpleDataSource")
            .isConnectionLoss(error("57P01", 0))).isTrue();
        assertThat(ConnectionErrors.of(null, null, null).isConnectionLoss(error("57P01", 0))).isFalse();
    }

    @ParameterizedTest(name = "{0} / {1}: {2}")
    @CsvSource({
        "42601, 0, PostgreSQL syntax error",
        "23505, 0, PostgreSQL unique violation",
        "57014, 0, PostgreSQL statement timeout",
        "40001, 0, PostgreSQL serialization failure",
        "42000, 1064, MariaDB syntax error",
        "23000, 1062, MariaDB duplicate key",
        "70100, 1969, MariaDB max_statement_time exceeded",
        "70100, 1317, MariaDB query interrupted",
        "HY000, 1290, MariaDB --secure-file-priv refusal",
        "42S02, 42102, H2 table not found",
    })
    void leavesOrdinaryErrorsToHikariCp(String sqlState, int code, String what) {
        ConnectionLossOverride override = override(what.startsWith("PostgreSQL") ? POSTGRESQL
            : what.startsWith("H2") ? H2 : MARIADB, none());
        assertThat(override.adjudicate(error(sqlState, code))).isEqualTo(Override.CONTINUE_EVICT);
    }

    /** Read-only refusals are {@code failoverEviction}'s; without it, the fault handling leaves them to HikariCP. */
    @ParameterizedTest(name = "{0} / {1}")
    @CsvSource({
        "25006, 0, cannot execute INSERT in a read-only transaction",
        "25006, 1792, Cannot execute statement in a READ ONLY transaction",
        "HY000, 1836, Running in read-only mode",
        "HY000, 1290, The MariaDB server is running with the --read-only option so it cannot execute this statement",
    })
    void readOnlyRefusalsAreLeftToHikariCp(String sqlState, int code, String message) {
        ConnectionLossOverride override = override(code == 0 ? POSTGRESQL : MARIADB, none());
        assertThat(override.adjudicate(new SQLException(message, sqlState, code))).isEqualTo(Override.CONTINUE_EVICT);
    }

    @Test
    void theUsersListEvictsBySqlStateOrVendorCode() {
        ConnectionLossOverride override = override(List.of("XX000", " 17002 "));
        assertThat(override.adjudicate(error("xx000", 0))).isEqualTo(Override.MUST_EVICT);
        assertThat(override.adjudicate(error("66000", 17002))).isEqualTo(Override.MUST_EVICT);
        assertThat(override.adjudicate(error("66000", 17003))).isEqualTo(Override.CONTINUE_EVICT);
    }

    @Test
    void theUsersOverrideWins() {
        ConnectionLossOverride keeps = new ConnectionLossOverride(new NeverEvict(),
            ConnectionErrors.of(POSTGRESQL, null, null), none(), null);
        assertThat(keeps.adjudicate(error("57P01", 0))).isEqualTo(Override.DO_NOT_EVICT);

        ConnectionLossOverride evicts = new ConnectionLossOverride(new AlwaysEvict(),
            ConnectionErrors.of(POSTGRESQL, null, null), none(), null);
        assertThat(evicts.adjudicate(error("42601", 0))).isEqualTo(Override.MUST_EVICT);
    }

    private static final class AlwaysEvict implements SQLExceptionOverride {
        @java.lang.Override
        public Override adjudicate(SQLException e) {
            return Override.MUST_EVICT;
        }
    }

    @Test
    void invalidEvictOnEntriesAreNamed() {
        assertThat(FaultHandlingRules.Validator.firstInvalid(List.of("08S01", "2013", "-4"))).isNull();
        assertThat(FaultHandlingRules.Validator.firstInvalid(List.of("08S01", "connection reset")))
            .isEqualTo("connection reset");
        assertThat(FaultHandlingRules.Validator.firstInvalid(List.of("08S0"))).isEqualTo("08S0");
    }
}
