package io.github.dropwizardhikari.operations;

import com.zaxxer.hikari.HikariConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TransactionPoolerCheckTest {
    private static final String POSTGRES = "jdbc:postgresql://127.0.0.1:6432/app";
    private static final Map<String, String> NO_PREPARE = Map.of("prepareThreshold", "0");

    private static List<String> fields(List<TransactionPoolerCheck.Warning> warnings) {
        return warnings.stream().map(TransactionPoolerCheck.Warning::field).toList();
    }

    /** A pool's configuration as the core builds it from the block's settings. */
    private static List<TransactionPoolerCheck.Warning> check(String url, Map<String, String> properties,
                                                              String initializationQuery, boolean isolationSet,
                                                              String schema) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        properties.forEach(config::addDataSourceProperty);
        config.setConnectionInitSql(initializationQuery);
        config.setTransactionIsolation(isolationSet ? "TRANSACTION_SERIALIZABLE" : null);
        config.setSchema(schema);
        return TransactionPoolerCheck.check(config);
    }

    @Test
    void theReadmeBlockPassesClean() {
        assertThat(check(POSTGRES, NO_PREPARE, null, false, null)).isEmpty();
    }

    @Test
    void theDriversDefaultPrepareThresholdIsNamed() {
        List<TransactionPoolerCheck.Warning> warnings = check(POSTGRES, Map.of(), null, false, null);

        assertThat(fields(warnings)).containsExactly("properties.prepareThreshold");
        assertThat(warnings.get(0).reason()).contains("prepareThreshold: 0");
    }

    @Test
    void aNonZeroThresholdIsNamedWithItsValue() {
        List<TransactionPoolerCheck.Warning> warnings = check(POSTGRES, Map.of("prepareThreshold", "3"), null,
            false, null);

        assertThat(warnings).singleElement().satisfies(warning -> assertThat(warning.reason()).startsWith("is 3,"));
    }

    @Test
    void aThresholdInTheUrlCounts() {
        assertThat(check(POSTGRES + "?ssl=false&prepareThreshold=0", Map.of(), null, false,
            null)).isEmpty();
    }

    @Test
    void otherDatabasesAreNotAskedForADriverPropertyTheyLack() {
        assertThat(check("jdbc:mariadb://127.0.0.1:6033/app", Map.of(), null, false, null))
            .isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"SET search_path TO app", "set statement_timeout = 5000", "SET SESSION sql_mode = ''",
        "SELECT 1; SET TIME ZONE 'UTC'", "LISTEN events", "SELECT set_config('app.user', 'x', false)",
        "SELECT pg_advisory_lock(42)", "CREATE TEMP TABLE scratch (id int)", "PREPARE q AS SELECT 1"})
    void initializationQueriesThatSetSessionStateAreNamed(String query) {
        assertThat(fields(check(POSTGRES, NO_PREPARE, query, false, null)))
            .containsExactly("initializationQuery");
    }

    @ParameterizedTest
    @ValueSource(strings = {"SELECT 1", "SET LOCAL statement_timeout = 5000", "SELECT set_config('a', 'b', true)",
        "SELECT pg_advisory_xact_lock(42)", "SET TRANSACTION READ ONLY"})
    void initializationQueriesThatLeaveNoSessionStatePass(String query) {
        assertThat(check(POSTGRES, NO_PREPARE, query, false, null)).isEmpty();
    }

    @Test
    void isolationAndSchemaAreSessionSettings() {
        assertThat(fields(check(POSTGRES, NO_PREPARE, null, true, "app")))
            .containsExactly("defaultTransactionIsolation", "schema");
    }

    @Test
    void theModeIsReadInAnyCase() {
        assertThat(PoolerMode.parse("Transaction")).isEqualTo(PoolerMode.TRANSACTION);
        assertThat(PoolerMode.parse("none")).isEqualTo(PoolerMode.NONE);
        assertThatThrownBy(() -> PoolerMode.parse("statement")).hasMessageContaining("none, transaction");
    }
}
