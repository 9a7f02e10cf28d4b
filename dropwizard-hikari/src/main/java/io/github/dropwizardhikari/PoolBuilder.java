package io.github.dropwizardhikari;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.config.IsolationNames;
import io.github.dropwizardhikari.config.RuleCheck;
import io.github.dropwizardhikari.config.SettingsCheck;
import io.github.dropwizardhikari.config.SettingsValidator;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * The one step from a factory's settings to a pool. The rules run again here, because a factory may have been
 * changed in Java since it was validated, or never validated; the values HikariCP cannot honour are taken from
 * that check, so the factory itself is never written.
 */
final class PoolBuilder {
    private PoolBuilder() {
    }

    /**
     * @return a pool that opens no connection before its first {@code getConnection()} or {@code start()}, with
     * HikariCP's health checks in the application's registry once {@link HikariBundle} has run; for settings that
     * cannot make a pool, a data source that raises the error when used
     */
    static ManagedDataSource build(HikariDataSourceFactory factory, MetricRegistry metricRegistry, String name) {
        requireNonNull(name, "name");
        requireNonNull(metricRegistry, "metricRegistry");
        HikariConfig config;
        try {
            config = resolve(factory, metricRegistry, name).config();
            config.validate();
        } catch (RuntimeException unusable) {
            // as Dropwizard's factory does when it was never validated: build() returns, using it raises SQLException
            return new UnusableDataSource(name, unusable);
        }
        // the pool's metrics go to the registry given here, through HikariCP's tracker set when it starts
        config.setMetricRegistry(null);
        BuiltPools pools = factory.builtPools();
        ManagedHikariDataSource pool = new ManagedHikariDataSource(config, metricRegistry,
            List.copyOf(factory.getExtensions()), pools.healthChecksFor(name));
        pools.add(pool);
        return pool;
    }

    /**
     * @return the settings as HikariCP's configuration, one line per setting, with values HikariCP accepts without
     * adjusting any, and their warnings
     * @throws IllegalStateException when the settings break a rule
     */
    static ResolvedSettings resolve(HikariDataSourceFactory factory, MetricRegistry metricRegistry, String name) {
        RuleCheck check = applyRules(factory);
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(factory.getUrl());
        config.setDataSourceClassName(factory.getDataSourceClassName().orElse(null));
        if (factory.getDriverClass() != null) {
            // HikariCP loads the class here, so a typo fails at startup
            config.setDriverClassName(factory.getDriverClass());
        }
        config.setUsername(factory.getUser());
        config.setPassword(factory.getPassword());
        config.setDataSourceProperties(toProperties(factory.getProperties()));
        config.setMinimumIdle(factory.getMinSize());
        config.setMaximumPoolSize(factory.getMaxSize());
        Duration maxWait = check.used("maxWaitForConnection", factory.getMaxWaitForConnection());
        config.setConnectionTimeout(maxWait.toMilliseconds());
        config.setIdleTimeout(check.used("minIdleTime", factory.getMinIdleTime()).toMilliseconds());
        Duration maxAge = check.used("maxConnectionAge", factory.getMaxConnectionAge().orElse(null));
        config.setMaxLifetime(maxAge == null ? 0 : maxAge.toMilliseconds());
        config.setKeepaliveTime(check.used("keepaliveTime", factory.getKeepaliveTime()).toMilliseconds());
        config.setLeakDetectionThreshold(factory.getLeakDetectionThreshold().toMilliseconds());
        config.setConnectionTestQuery(factory.getValidationQuery().orElse(null));
        config.setValidationTimeout(check.used("validationQueryTimeout",
            SettingsRules.validationTimeout(factory.validationQueryTimeoutGiven(), maxWait)).toMilliseconds());
        config.setConnectionInitSql(factory.getInitializationQuery());
        config.setAutoCommit(check.used("autoCommitByDefault", factory.getAutoCommitByDefault()));
        config.setReadOnly(check.used("readOnlyByDefault", factory.getReadOnlyByDefault()));
        config.setCatalog(factory.getDefaultCatalog());
        config.setTransactionIsolation(factory.getDefaultTransactionIsolation() == null ? null
            : IsolationNames.hikariName(factory.getDefaultTransactionIsolation()));
        config.setSchema(factory.getSchema().orElse(null));
        config.setInitializationFailTimeout(initializationFailTimeoutMillis(factory));
        config.setIsolateInternalQueries(factory.isIsolateInternalQueries());
        config.setAllowPoolSuspension(factory.isAllowPoolSuspension());
        config.setRegisterMbeans(factory.isRegisterMbeans());
        // HikariCP 7.1.0's credentials-provider setter also overwrites the exception override's class name,
        // so the exception override goes second.
        factory.getCredentialsProviderClassName().ifPresent(config::setCredentialsProviderClassName);
        factory.getCredentials().ifPresent(files ->
            config.setCredentialsProvider(files.build(factory.getUser(), factory.getPassword())));
        factory.getExceptionOverrideClassName().ifPresent(config::setExceptionOverrideClassName);
        config.setHealthCheckProperties(toProperties(factory.getHealthCheckProperties()));
        config.setMetricRegistry(requireNonNull(metricRegistry, "metricRegistry"));
        return new ResolvedSettings(config, List.copyOf(check.warnings().values()));
    }

    /** Logs the warnings not logged yet and throws the errors. */
    private static RuleCheck applyRules(HikariDataSourceFactory factory) {
        RuleCheck check = SettingsCheck.run(factory);
        SettingsValidator.warnOnce(factory, check);
        if (!check.errors().isEmpty()) {
            throw new IllegalStateException("invalid HikariCP configuration: " + check.errors().stream()
                .map(error -> check.origin().pathOf(error.field()) + " " + error.message())
                .collect(Collectors.joining("; ")));
        }
        return check;
    }

    /**
     * Dropwizard's two ways to start with the database down, as HikariCP says them: {@code initialSize: 0} opens
     * nothing at start (-1), {@code ignoreExceptionOnPreLoad: true} tries once and starts anyway (0). A
     * {@code initializationFailTimeout} that is set wins.
     */
    private static long initializationFailTimeoutMillis(HikariDataSourceFactory factory) {
        if (factory.isGiven("initializationFailTimeout")) {
            return factory.getInitializationFailTimeout().toMilliseconds();
        }
        if (factory.isGiven("initialSize") && factory.initialSize() == 0) {
            return -1;
        }
        return factory.ignoresExceptionOnPreLoad() ? 0 : factory.getInitializationFailTimeout().toMilliseconds();
    }

    private static Properties toProperties(Map<String, String> values) {
        Properties result = new Properties();
        result.putAll(values);
        return result;
    }
}
