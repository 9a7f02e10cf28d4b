package io.github.dropwizardhikari.dropin;

import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;

import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The fields of Dropwizard's {@code DataSourceFactory} that HikariCP has a counterpart for: what a block asked,
 * in HikariCP's units, and where the value HikariCP will use can be read. A field whose used value differs
 * from the asked one was adjusted and must have been warned about.
 */
enum MappedField {
    URL("url", MappedField::text, (config, factory) -> config.getJdbcUrl()),
    DRIVER_CLASS("driverClass", MappedField::text, (config, factory) -> config.getDriverClassName()),
    USER("user", MappedField::text, (config, factory) -> blankToNull(config.getUsername())),
    PASSWORD("password", MappedField::text, (config, factory) -> blankToNull(config.getPassword())),
    MIN_SIZE("minSize", Integer::valueOf, (config, factory) -> config.getMinimumIdle()),
    MAX_SIZE("maxSize", Integer::valueOf, (config, factory) -> config.getMaximumPoolSize()),
    MAX_WAIT_FOR_CONNECTION("maxWaitForConnection", MappedField::millis,
        (config, factory) -> config.getConnectionTimeout()),
    MIN_IDLE_TIME("minIdleTime", MappedField::millis, (config, factory) -> config.getIdleTimeout()),
    MAX_CONNECTION_AGE("maxConnectionAge", MappedField::millis, (config, factory) -> config.getMaxLifetime()),
    VALIDATION_QUERY("validationQuery", MappedField::text, (config, factory) -> config.getConnectionTestQuery()),
    VALIDATION_QUERY_TIMEOUT("validationQueryTimeout", MappedField::millis,
        (config, factory) -> config.getValidationTimeout()),
    INITIALIZATION_QUERY("initializationQuery", MappedField::text,
        (config, factory) -> config.getConnectionInitSql()),
    AUTO_COMMIT_BY_DEFAULT("autoCommitByDefault", Boolean::valueOf, (config, factory) -> config.isAutoCommit()),
    READ_ONLY_BY_DEFAULT("readOnlyByDefault", Boolean::valueOf, (config, factory) -> config.isReadOnly()),
    DEFAULT_CATALOG("defaultCatalog", MappedField::text, (config, factory) -> config.getCatalog()),
    DEFAULT_TRANSACTION_ISOLATION("defaultTransactionIsolation", MappedField::isolation,
        (config, factory) -> config.getTransactionIsolation()),
    AUTO_COMMENTS_ENABLED("autoCommentsEnabled", Boolean::valueOf,
        (config, factory) -> factory.isAutoCommentsEnabled());

    private final String yamlName;
    private final Function<String, Object> asked;
    private final BiFunction<HikariConfig, HikariDataSourceFactory, Object> used;

    MappedField(String yamlName, Function<String, Object> asked,
                BiFunction<HikariConfig, HikariDataSourceFactory, Object> used) {
        this.yamlName = yamlName;
        this.asked = asked;
        this.used = used;
    }

    String yamlName() {
        return yamlName;
    }

    /** The block's value in HikariCP's terms: milliseconds, HikariCP's isolation names, no empty strings. */
    Object asked(String yamlText) {
        return asked.apply(yamlText);
    }

    Object used(HikariConfig config, HikariDataSourceFactory factory) {
        return used.apply(config, factory);
    }

    /** The data source properties are a map, compared on their own. */
    static Map<String, String> usedProperties(HikariConfig config) {
        Properties properties = config.getDataSourceProperties();
        Map<String, String> result = new TreeMap<>();
        properties.stringPropertyNames().forEach(name -> result.put(name, properties.getProperty(name)));
        return result;
    }

    private static Object text(String yamlText) {
        String unquoted = yamlText.startsWith("\"") ? yamlText.substring(1, yamlText.length() - 1) : yamlText;
        return blankToNull(unquoted);
    }

    private static Object millis(String yamlText) {
        return Duration.parse(yamlText).toMilliseconds();
    }

    private static Object isolation(String yamlText) {
        return "DEFAULT".equals(yamlText) ? null : "TRANSACTION_" + yamlText;
    }

    private static String blankToNull(String value) {
        return value == null || value.isEmpty() ? null : value;
    }
}
