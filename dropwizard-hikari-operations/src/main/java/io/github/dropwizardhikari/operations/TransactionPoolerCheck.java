package io.github.dropwizardhikari.operations;

import com.zaxxer.hikari.HikariConfig;
import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds the settings that assume one server session per pooled connection, which a transaction pooler breaks by
 * running each transaction on whichever server connection is free. The checks are narrow on purpose: only settings
 * the bundle can read and failures that are certain; session state set by application code is beyond it.
 */
final class TransactionPoolerCheck {
    // statements whose effect outlives the transaction they run in: SET (not SET LOCAL or SET TRANSACTION),
    // RESET, LISTEN, PREPARE, temporary tables, set_config(..., false) and session-level advisory locks
    private static final Pattern SESSION_STATE = Pattern.compile("(?is)(?:^|;)\\s*(?:SET\\s+(?!LOCAL\\b|TRANSACTION\\b)"
        + "|RESET\\b|LISTEN\\b|PREPARE\\b|CREATE\\s+TEMP(?:ORARY)?\\b)"
        + "|\\bset_config\\s*\\([^)]*\\bfalse\\s*\\)|\\bpg_advisory_lock");
    private static final Pattern PREPARE_THRESHOLD_IN_URL = Pattern.compile("[?&]prepareThreshold=([^&]*)",
        Pattern.CASE_INSENSITIVE);

    /** A setting, under its YAML name, that cannot work as set behind a transaction pooler, and why. */
    record Warning(String field, String reason) {
    }

    private TransactionPoolerCheck() {
    }

    /** @return one warning per setting of the pool that cannot work through a transaction pooler, in YAML order */
    static List<Warning> check(HikariConfig config) {
        String initializationQuery = config.getConnectionInitSql();
        String schema = config.getSchema();
        List<Warning> warnings = new ArrayList<>();
        if (initializationQuery != null && SESSION_STATE.matcher(initializationQuery.trim()).find()) {
            warnings.add(new Warning("initializationQuery", "it runs once on each new pooled connection and "
                + "sets session state, but a transaction pooler runs each transaction on whichever server "
                + "connection is free, so later transactions may not see it; move the setting to the database or "
                + "role (ALTER ROLE ... SET ...), or use SET LOCAL inside each transaction"));
        }
        if (config.getTransactionIsolation() != null) {
            warnings.add(new Warning("defaultTransactionIsolation", "the driver sets it once per pooled "
                + "connection as a session characteristic, which a transaction pooler does not carry to the next "
                + "server connection; set default_transaction_isolation on the database or role instead"));
        }
        if (schema != null && !schema.isBlank()) {
            warnings.add(new Warning("schema", "it is applied once per pooled connection as session state "
                + "(search_path); set search_path on the database or role, or qualify table names"));
        }
        if (ServerLimit.isPostgres(config.getJdbcUrl())) {
            String threshold = prepareThreshold(config);
            if (threshold == null) {
                warnings.add(new Warning("properties.prepareThreshold", "left at the driver's default (5), "
                    + "PostgreSQL's driver prepares a statement on the server after 5 executions, and a "
                    + "transaction pooler routes the next execution to a server connection that lacks it "
                    + "(PgBouncer before 1.21, or without max_prepared_statements); set prepareThreshold: 0"));
            } else if (!threshold.trim().equals("0")) {
                warnings.add(new Warning("properties.prepareThreshold", "is " + threshold.trim()
                    + ", so statements get prepared on one server connection and executed on another; set 0 "
                    + "unless the pooler tracks prepared statements (PgBouncer 1.21+ with max_prepared_statements)"));
            }
        }
        return warnings;
    }

    @Nullable
    private static String prepareThreshold(HikariConfig config) {
        for (String key : config.getDataSourceProperties().stringPropertyNames()) {
            if (key.equalsIgnoreCase("prepareThreshold")) {
                return config.getDataSourceProperties().getProperty(key);
            }
        }
        Matcher matcher = PREPARE_THRESHOLD_IN_URL.matcher(String.valueOf(config.getJdbcUrl()));
        return matcher.find() ? matcher.group(1) : null;
    }
}
