package io.github.dropwizardhikari;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.db.DataSourceFactory.TransactionIsolation;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.PooledDataSourceFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.selfvalidating.SelfValidating;
import io.dropwizard.validation.selfvalidating.SelfValidation;
import io.dropwizard.validation.selfvalidating.ViolationCollector;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.jspecify.annotations.Nullable;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.ConcurrentHashMap;

import static io.dropwizard.validation.InterpolationHelper.escapeMessageParameter;
import static java.util.Objects.requireNonNull;

/**
 * A {@link PooledDataSourceFactory} that builds a HikariCP pool: the drop-in replacement for Dropwizard's
 * Tomcat-based {@code DataSourceFactory}.
 * <p>Dropwizard's field names are used wherever the meaning is the same, so a {@code database:} block can be
 * renamed to {@code hikari:}; HikariCP's own names are accepted as aliases. In Java, every public method of
 * {@code DataSourceFactory} exists here with the same signature, so swapping the field's type is a rename.</p>
 * <p>Every value Dropwizard accepts is accepted: where HikariCP cannot honour one, the nearest safe value is used with
 * one warning naming the setting's full path. What Dropwizard refuses is an error, and so are HikariCP-only settings
 * out of range. {@code docs/configuration.md} lists the same settings with each one's floor.</p>
 * <table>
 * <caption>Configuration parameters</caption>
 * <tr><th>Name</th><th>Aliases</th><th>Default</th><th>Description</th></tr>
 * <tr><td>{@code url}</td><td>{@code jdbcUrl}</td><td>none</td><td>The JDBC URL.</td></tr>
 * <tr><td>{@code dataSourceClassName}</td><td></td><td>none</td><td>A JDBC {@code DataSource} class, configured with
 * {@code properties} as bean properties.</td></tr>
 * <tr><td>{@code driverClass}</td><td>{@code driverClassName}</td><td>none (found from the URL)</td><td>The JDBC
 * driver class.</td></tr>
 * <tr><td>{@code user}</td><td>{@code username}</td><td>none</td><td>The user to connect as.</td></tr>
 * <tr><td>{@code password}</td><td></td><td>none</td><td>The password; write-only.</td></tr>
 * <tr><td>{@code properties}</td><td>{@code dataSourceProperties}</td><td>none</td><td>Driver properties; secrets
 * masked in JSON and {@code toString()}.</td></tr>
 * <tr><td>{@code minSize}</td><td>{@code minimumIdle}</td><td>same as {@code maxSize}</td><td>Idle connections kept
 * ready.</td></tr>
 * <tr><td>{@code maxSize}</td><td>{@code maximumPoolSize}</td><td>10</td><td>The most connections.</td></tr>
 * <tr><td>{@code maxWaitForConnection}</td><td>{@code connectionTimeout}</td><td>30 seconds</td><td>How long a borrow
 * waits; at least 250 ms.</td></tr>
 * <tr><td>{@code minIdleTime}</td><td>{@code idleTimeout}</td><td>10 minutes</td><td>How long a connection above
 * {@code minSize} may sit idle.</td></tr>
 * <tr><td>{@code maxConnectionAge}</td><td>{@code maxLifetime}</td><td>30 minutes</td><td>The longest a connection
 * lives; {@code null} in Java: no limit.</td></tr>
 * <tr><td>{@code keepaliveTime}</td><td></td><td>2 minutes</td><td>How often an idle connection is tested.</td></tr>
 * <tr><td>{@code leakDetectionThreshold}</td><td></td><td>0 milliseconds (off)</td><td>Logs a connection held
 * longer.</td></tr>
 * <tr><td>{@code networkTimeout}</td><td></td><td>0 seconds (none)</td><td>How long a borrowed connection's call may wait
 * on a silent database; 0: no limit, as in Dropwizard and HikariCP.</td></tr>
 * <tr><td>{@code validationQuery}</td><td>{@code connectionTestQuery}</td><td>none (JDBC 4 {@code
 * Connection.isValid()})</td><td>SQL that tests a connection.</td></tr>
 * <tr><td>{@code validationQueryTimeout}</td><td>{@code validationTimeout}</td><td>none (the pool runs 5 seconds,
 * or {@code maxWaitForConnection} if shorter)</td><td>How long a connection test may take.</td></tr>
 * <tr><td>{@code initializationQuery}</td><td>{@code connectionInitSql}</td><td>none</td><td>SQL run on every new
 * connection.</td></tr>
 * <tr><td>{@code autoCommitByDefault}</td><td>{@code autoCommit}</td><td>{@code true}</td><td>Every borrowed
 * connection's auto-commit.</td></tr>
 * <tr><td>{@code readOnlyByDefault}</td><td>{@code readOnly}</td><td>{@code false}</td><td>Every borrowed
 * connection's read-only state.</td></tr>
 * <tr><td>{@code defaultCatalog}</td><td>{@code catalog}</td><td>none (driver default)</td><td>Every borrowed
 * connection's catalog.</td></tr>
 * <tr><td>{@code defaultTransactionIsolation}</td><td>{@code transactionIsolation}</td><td>{@code DEFAULT} (driver
 * default)</td><td>Every borrowed connection's isolation.</td></tr>
 * <tr><td>{@code schema}</td><td></td><td>none (driver default)</td><td>Every borrowed connection's schema.</td></tr>
 * <tr><td>{@code initializationFailTimeout}</td><td></td><td>1 millisecond</td><td>How long the pool's start tries to
 * connect.</td></tr>
 * <tr><td>{@code isolateInternalQueries}</td><td></td><td>{@code false}</td><td>The pool's own queries in their own
 * transaction.</td></tr>
 * <tr><td>{@code allowPoolSuspension}</td><td></td><td>{@code false}</td><td>Suspending through JMX.</td></tr>
 * <tr><td>{@code registerMbeans}</td><td></td><td>{@code false}</td><td>HikariCP's JMX beans.</td></tr>
 * <tr><td>{@code exceptionOverrideClassName}</td><td></td><td>none</td><td>Which {@code SQLException}s evict a
 * connection.</td></tr>
 * <tr><td>{@code credentialsProviderClassName}</td><td></td><td>none</td><td>Supplies user and password for each new
 * connection.</td></tr>
 * <tr><td>{@code healthCheckProperties}</td><td></td><td>none</td><td>{@code connectivityCheckTimeoutMs}, {@code
 * expected99thPercentileMs}.</td></tr>
 * <tr><td>{@code autoCommentsEnabled}</td><td></td><td>{@code true}</td><td>JDBI and Hibernate prefix queries with
 * their caller.</td></tr>
 * <tr><td>{@code extensions}</td><td></td><td>none</td><td>The extras for this block's pools, see
 * {@link PoolExtension}.</td></tr>
 * </table>
 * <p>Tomcat's settings that HikariCP lacks are in {@link TomcatOnlySettings}; any other unknown field fails at
 * startup.</p>
 */
@JsonDeserialize(using = OriginRecordingDeserializer.class)
@SelfValidating
public class HikariDataSourceFactory extends TomcatOnlySettings implements PooledDataSourceFactory {

    static final int DEFAULT_MAX_SIZE = 10;

    @JsonAlias("jdbcUrl")
    @JsonSerialize(using = Redaction.MaskedSerializer.class)
    private @Nullable String url;

    private @Nullable String dataSourceClassName;

    @JsonAlias("driverClassName")
    private @Nullable String driverClass;

    @JsonAlias("username")
    private @Nullable String user;

    @JsonProperty(access = JsonProperty.Access.WRITE_ONLY)
    private @Nullable String password;

    @JsonAlias("dataSourceProperties")
    @JsonSerialize(using = Redaction.MaskedSerializer.class)
    @NotNull
    private Map<String, String> properties = new LinkedHashMap<>();

    /** Read only once given; until then the getter follows {@code maxSize}, whichever order the setters run in. */
    @JsonAlias("minimumIdle")
    @Min(0)
    private int minSize;

    @JsonAlias("maximumPoolSize")
    @Min(1)
    private int maxSize = DEFAULT_MAX_SIZE;

    @JsonAlias("connectionTimeout")
    @NotNull
    private Duration maxWaitForConnection = Duration.seconds(30);

    @JsonAlias("idleTimeout")
    @NotNull
    private Duration minIdleTime = SettingsCheck.DEFAULT_IDLE_TIME;

    @JsonAlias("maxLifetime")
    private @Nullable Duration maxConnectionAge = Duration.minutes(30);

    @NotNull
    private Duration keepaliveTime = Duration.minutes(2);

    @NotNull
    private Duration leakDetectionThreshold = Duration.milliseconds(0);

    @NotNull
    private Duration networkTimeout = Duration.seconds(0);

    @JsonAlias("connectionTestQuery")
    @Nullable
    private String validationQuery;

    @JsonAlias("validationTimeout")
    private @Nullable Duration validationQueryTimeout;

    @JsonAlias("connectionInitSql")
    private @Nullable String initializationQuery;

    /** {@code null}: the pool uses JDBC's default, on, with a warning. */
    @JsonAlias("autoCommit")
    private @Nullable Boolean autoCommitByDefault = true;

    /** {@code null}: the pool uses JDBC's default, off, with a warning. */
    @JsonAlias("readOnly")
    private @Nullable Boolean readOnlyByDefault = false;

    @JsonAlias("catalog")
    private @Nullable String defaultCatalog;

    @JsonAlias("transactionIsolation")
    @JsonDeserialize(using = IsolationDeserializer.class)
    @NotNull
    private TransactionIsolation defaultTransactionIsolation = TransactionIsolation.DEFAULT;

    private @Nullable String schema;

    // ---- HikariCP only

    /** Only a value given wins over what {@code initialSize: 0} or {@code ignoreExceptionOnPreLoad} ask. */
    private Duration initializationFailTimeout = Duration.milliseconds(1);

    private boolean isolateInternalQueries = false;
    private boolean allowPoolSuspension = false;
    private boolean registerMbeans = false;
    private @Nullable String exceptionOverrideClassName;
    private @Nullable String credentialsProviderClassName;

    @NotNull
    private Map<String, String> healthCheckProperties = new LinkedHashMap<>();

    // ---- for Dropwizard's clients (JDBI, Hibernate)

    private boolean autoCommentsEnabled = true;

    @Valid
    @NotNull
    @JsonDeserialize(contentUsing = ExtensionDeserializer.class)
    private List<PoolExtension> extensions = new ArrayList<>();

    // ---- not settings

    @JsonIgnore
    private Origin origin = Origin.JAVA;

    @JsonIgnore
    private final Set<String> loggedWarnings = ConcurrentHashMap.newKeySet();

    @JsonIgnore
    private final BuiltPools builtPools = new BuiltPools();

    @JsonIgnore
    private boolean singleConnection;

    @Override
    public @Nullable String getUrl() {
        return url;
    }

    public void setUrl(@Nullable String url) {
        this.url = url;
    }

    public Optional<String> getDataSourceClassName() {
        return Optional.ofNullable(dataSourceClassName);
    }

    public void setDataSourceClassName(@Nullable String dataSourceClassName) {
        this.dataSourceClassName = dataSourceClassName;
    }

    @Override
    public @Nullable String getDriverClass() {
        return driverClass;
    }

    public void setDriverClass(@Nullable String driverClass) {
        this.driverClass = driverClass;
    }

    public @Nullable String getUser() {
        return user;
    }

    public void setUser(@Nullable String user) {
        this.user = user;
    }

    @JsonIgnore
    public @Nullable String getPassword() {
        return password;
    }

    @JsonProperty
    public void setPassword(@Nullable String password) {
        this.password = password;
    }

    @Override
    public Map<String, String> getProperties() {
        return properties;
    }

    public void setProperties(Map<String, String> properties) {
        this.properties = properties;
    }

    public int getMinSize() {
        return isGiven("minSize") ? minSize : getMaxSize();
    }

    public void setMinSize(int minSize) {
        this.minSize = given("minSize", minSize);
    }

    public int getMaxSize() {
        return maxSize;
    }

    public void setMaxSize(int maxSize) {
        this.maxSize = given("maxSize", maxSize);
    }

    public Duration getMaxWaitForConnection() {
        return maxWaitForConnection;
    }

    public void setMaxWaitForConnection(Duration maxWaitForConnection) {
        this.maxWaitForConnection = maxWaitForConnection;
    }

    public Duration getMinIdleTime() {
        return minIdleTime;
    }

    public void setMinIdleTime(Duration minIdleTime) {
        this.minIdleTime = given("minIdleTime", minIdleTime);
    }

    public Optional<Duration> getMaxConnectionAge() {
        return Optional.ofNullable(maxConnectionAge);
    }

    public void setMaxConnectionAge(@Nullable Duration maxConnectionAge) {
        this.maxConnectionAge = maxConnectionAge;
    }

    public Duration getKeepaliveTime() {
        return keepaliveTime;
    }

    public void setKeepaliveTime(Duration keepaliveTime) {
        this.keepaliveTime = given("keepaliveTime", keepaliveTime);
    }

    public Duration getLeakDetectionThreshold() {
        return leakDetectionThreshold;
    }

    public void setLeakDetectionThreshold(Duration leakDetectionThreshold) {
        this.leakDetectionThreshold = leakDetectionThreshold;
    }

    public Duration getNetworkTimeout() {
        return networkTimeout;
    }

    public void setNetworkTimeout(Duration networkTimeout) {
        this.networkTimeout = networkTimeout;
    }

    @Override
    public Optional<String> getValidationQuery() {
        return Optional.ofNullable(validationQuery);
    }

    public void setValidationQuery(@Nullable String validationQuery) {
        this.validationQuery = validationQuery;
    }

    /** As given, as Jdbi's and Hibernate's checks read it; the pool uses 5 seconds when it is not given. */
    @Override
    public Optional<Duration> getValidationQueryTimeout() {
        return Optional.ofNullable(validationQueryTimeout);
    }

    public void setValidationQueryTimeout(@Nullable Duration validationQueryTimeout) {
        this.validationQueryTimeout = validationQueryTimeout;
    }

    public @Nullable String getInitializationQuery() {
        return initializationQuery;
    }

    public void setInitializationQuery(@Nullable String initializationQuery) {
        this.initializationQuery = initializationQuery;
    }

    public @Nullable Boolean getAutoCommitByDefault() {
        return autoCommitByDefault;
    }

    public void setAutoCommitByDefault(@Nullable Boolean autoCommitByDefault) {
        this.autoCommitByDefault = autoCommitByDefault;
    }

    public @Nullable Boolean getReadOnlyByDefault() {
        return readOnlyByDefault;
    }

    public void setReadOnlyByDefault(@Nullable Boolean readOnlyByDefault) {
        this.readOnlyByDefault = readOnlyByDefault;
    }

    public @Nullable String getDefaultCatalog() {
        return defaultCatalog;
    }

    public void setDefaultCatalog(@Nullable String defaultCatalog) {
        this.defaultCatalog = defaultCatalog;
    }

    public TransactionIsolation getDefaultTransactionIsolation() {
        return defaultTransactionIsolation;
    }

    public void setDefaultTransactionIsolation(TransactionIsolation defaultTransactionIsolation) {
        this.defaultTransactionIsolation = defaultTransactionIsolation;
    }

    public Optional<String> getSchema() {
        return Optional.ofNullable(schema);
    }

    public void setSchema(@Nullable String schema) {
        this.schema = schema;
    }

    public Duration getInitializationFailTimeout() {
        return initializationFailTimeout;
    }

    /** @param initializationFailTimeout {@code null} (YAML's {@code ~} too) leaves it as it was */
    public void setInitializationFailTimeout(@Nullable Duration initializationFailTimeout) {
        if (initializationFailTimeout != null) {
            this.initializationFailTimeout = given("initializationFailTimeout", initializationFailTimeout);
        }
    }

    public boolean isIsolateInternalQueries() {
        return isolateInternalQueries;
    }

    public void setIsolateInternalQueries(boolean isolateInternalQueries) {
        this.isolateInternalQueries = isolateInternalQueries;
    }

    public boolean isAllowPoolSuspension() {
        return allowPoolSuspension;
    }

    public void setAllowPoolSuspension(boolean allowPoolSuspension) {
        this.allowPoolSuspension = allowPoolSuspension;
    }

    public boolean isRegisterMbeans() {
        return registerMbeans;
    }

    public void setRegisterMbeans(boolean registerMbeans) {
        this.registerMbeans = registerMbeans;
    }

    public Optional<String> getExceptionOverrideClassName() {
        return Optional.ofNullable(exceptionOverrideClassName);
    }

    public void setExceptionOverrideClassName(@Nullable String exceptionOverrideClassName) {
        this.exceptionOverrideClassName = exceptionOverrideClassName;
    }

    public Optional<String> getCredentialsProviderClassName() {
        return Optional.ofNullable(credentialsProviderClassName);
    }

    public void setCredentialsProviderClassName(@Nullable String credentialsProviderClassName) {
        this.credentialsProviderClassName = credentialsProviderClassName;
    }

    public Map<String, String> getHealthCheckProperties() {
        return healthCheckProperties;
    }

    public void setHealthCheckProperties(Map<String, String> healthCheckProperties) {
        this.healthCheckProperties = healthCheckProperties;
    }

    @Override
    public boolean isAutoCommentsEnabled() {
        return autoCommentsEnabled;
    }

    public void setAutoCommentsEnabled(boolean autoCommentsEnabled) {
        this.autoCommentsEnabled = autoCommentsEnabled;
    }

    public List<PoolExtension> getExtensions() {
        return extensions;
    }

    public void setExtensions(List<PoolExtension> extensions) {
        this.extensions = extensions;
    }

    @Override
    public void asSingleConnectionPool() {
        minSize = given("minSize", 1);
        maxSize = given("maxSize", 1);
        singleConnectionInitialSize();
        singleConnection = true;
    }

    /** @return whether a command sized the pool itself ({@code db migrate}, {@code db status}) */
    boolean isSingleConnection() {
        return singleConnection;
    }

    Origin origin() {
        return origin;
    }

    void parsedFrom(Origin origin) {
        this.origin = requireNonNull(origin, "origin");
    }

    /** @return whether the warning {@code key} is logged for the first time: once per block */
    boolean firstTime(String key) {
        return loggedWarnings.add(key);
    }

    /** @return {@code maxSize}, or when it is not given, its default raised to a larger minSize or initialSize */
    int maxSizeUsed() {
        int largestGiven = Math.max(isGiven("minSize") ? minSize : 0, isGiven("initialSize") ? getInitialSize() : 0);
        return isGiven("maxSize") ? maxSize : Math.max(maxSize, largestGiven);
    }

    /** @return the idle connections the pool keeps: {@code minSize}, or else the pool's largest size */
    int minSizeUsed() {
        return isGiven("minSize") ? minSize : maxSizeUsed();
    }

    // Dropwizard's three size rules, on the sizes given; SettingsCheck reports them
    @JsonIgnore
    public boolean isMinSizeLessThanMaxSize() {
        return !isGiven("minSize") || minSize <= maxSizeUsed();
    }

    @JsonIgnore
    public boolean isInitialSizeLessThanMaxSize() {
        return !isGiven("initialSize") || getInitialSize() <= maxSizeUsed();
    }

    @JsonIgnore
    public boolean isInitialSizeGreaterThanMinSize() {
        return !isGiven("initialSize") || !isGiven("minSize") || minSize <= getInitialSize();
    }

    /**
     * Dropwizard's validation of the block ({@code check}, {@code server}): each error on its setting, so Dropwizard
     * prints its full path ({@code hikari.minSize ...}); each warning logged once per block.
     */
    @SelfValidation
    public void validateSettings(ViolationCollector violations) {
        for (SettingsCheck.Error error : new SettingsCheck(this).logOnce().errors()) {
            // a message may quote a configured value or a path: Dropwizard's escaping makes it read as itself
            violations.addViolation(error.field(), escapeMessageParameter(error.message()));
        }
    }

    /** @return the configuration of {@link #resolve}: a new one, which HikariCP accepts without adjusting a value */
    public HikariConfig toHikariConfig(MetricRegistry metricRegistry, String name) {
        return resolve(metricRegistry, name).config();
    }

    /**
     * Resolves the settings into HikariCP's configuration, the values HikariCP cannot honour replaced. The rules run
     * again, as the factory may have changed in Java since it was validated.
     * @param name the pool's name and the prefix of its metrics and health checks
     * @throws IllegalStateException when the settings break a rule
     */
    public ResolvedSettings resolve(MetricRegistry metricRegistry, String name) {
        SettingsCheck check = new SettingsCheck(this).logOnce().throwIfInvalid();
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(getUrl());
        config.setDataSourceClassName(getDataSourceClassName().orElse(null));
        if (getDriverClass() != null) {
            // HikariCP loads the class here, so a typo fails at startup
            config.setDriverClassName(getDriverClass());
        }
        config.setUsername(getUser());
        config.setPassword(getPassword());
        config.getDataSourceProperties().putAll(getProperties());
        config.setMinimumIdle(minSizeUsed());
        config.setMaximumPoolSize(maxSizeUsed());
        Duration maxWait = check.used("maxWaitForConnection", getMaxWaitForConnection());
        config.setConnectionTimeout(maxWait.toMilliseconds());
        config.setIdleTimeout(check.used("minIdleTime", getMinIdleTime()).toMilliseconds());
        Duration maxAge = check.used("maxConnectionAge", getMaxConnectionAge().orElse(null));
        config.setMaxLifetime(maxAge == null ? 0 : maxAge.toMilliseconds());
        config.setKeepaliveTime(check.used("keepaliveTime", getKeepaliveTime()).toMilliseconds());
        config.setLeakDetectionThreshold(getLeakDetectionThreshold().toMilliseconds());
        config.setConnectionTestQuery(getValidationQuery().orElse(null));
        config.setValidationTimeout(check.used("validationQueryTimeout",
            SettingsCheck.validationTimeout(validationQueryTimeout, maxWait)).toMilliseconds());
        config.setConnectionInitSql(getInitializationQuery());
        config.setAutoCommit(check.used("autoCommitByDefault", getAutoCommitByDefault()));
        config.setReadOnly(check.used("readOnlyByDefault", getReadOnlyByDefault()));
        config.setCatalog(getDefaultCatalog());
        config.setTransactionIsolation(IsolationDeserializer.hikariName(getDefaultTransactionIsolation()));
        config.setSchema(getSchema().orElse(null));
        config.setInitializationFailTimeout(initializationFailTimeoutMillis());
        config.setIsolateInternalQueries(isIsolateInternalQueries());
        config.setAllowPoolSuspension(isAllowPoolSuspension());
        config.setRegisterMbeans(isRegisterMbeans());
        // HikariCP 7.1.0's credentials-provider setter also overwrites the exception override's class name,
        // so the exception override goes second.
        getCredentialsProviderClassName().ifPresent(config::setCredentialsProviderClassName);
        getExceptionOverrideClassName().ifPresent(config::setExceptionOverrideClassName);
        config.getHealthCheckProperties().putAll(getHealthCheckProperties());
        config.setMetricRegistry(requireNonNull(metricRegistry, "metricRegistry"));
        return new ResolvedSettings(config, List.copyOf(check.warnings().values()));
    }

    // Dropwizard's two ways to start with the database down: initialSize: 0 (-1), ignoreExceptionOnPreLoad (0)
    private long initializationFailTimeoutMillis() {
        boolean given = isGiven("initializationFailTimeout");
        return !given && isGiven("initialSize") && getInitialSize() == 0 ? -1
            : !given && isIgnoreExceptionOnPreLoad() ? 0 : getInitializationFailTimeout().toMilliseconds();
    }

    /** Builds a pool that opens no connection before its first {@code getConnection()} or {@code start()}. */
    @Override
    public ManagedDataSource build(MetricRegistry metricRegistry, String name) {
        requireNonNull(name, "name");
        requireNonNull(metricRegistry, "metricRegistry");
        HikariConfig config;
        try {
            config = resolve(metricRegistry, name).config();
            config.validate();
        } catch (RuntimeException unusable) {
            // as Dropwizard's factory does when it was never validated: build() returns, using it raises SQLException
            return ManagedHikariDataSource.unusable(name, unusable);
        }
        HeldConnections.Settings holds = new HeldConnections.Settings(getNetworkTimeout(),
            isRemoveAbandoned() ? getRemoveAbandonedTimeout() : Duration.seconds(0), getLogAbandonedConnections());
        ManagedHikariDataSource pool = new ManagedHikariDataSource(config, metricRegistry,
            List.copyOf(getExtensions()), builtPools.healthChecksFor(name), holds, null);
        builtPools.add(pool);
        return pool;
    }

    BuiltPools builtPools() {
        return builtPools;
    }

    /** Binds this block's pools, built and to come, to the application; the extensions named run once for it. */
    void bind(Environment environment) {
        if (builtPools.bind(environment)) {
            extensions.forEach(extension -> extension.run(environment, builtPools::running));
        }
    }

    /** @return every setting under its YAML name, with secrets masked, then the Tomcat-only settings given */
    @Override
    public String toString() {
        StringJoiner settings = new StringJoiner(", ", "HikariDataSourceFactory{", "}");
        for (Field field : HikariDataSourceFactory.class.getDeclaredFields()) {
            if (!Modifier.isStatic(field.getModifiers()) && !field.isSynthetic()
                && !field.isAnnotationPresent(JsonIgnore.class)) {
                settings.add(field.getName() + "=" + shown(field));
            }
        }
        return settings.add("tomcatOnlySettings=" + getTomcatOnlySettings()).toString();
    }

    private @Nullable Object shown(Field field) {
        try {
            return switch (field.getName()) {
                case "password" -> password == null ? "none" : Redaction.MASK;
                case "url" -> Redaction.url(url);
                case "properties" -> properties == null ? null : Redaction.properties(properties);
                case "minSize" -> getMinSize();
                // each extension as its YAML (type and settings), with one mapper: building one costs the most
                case "extensions" -> extensions == null ? null : extensions.stream()
                    .map(Jackson.newObjectMapper()::valueToTree).map(Object::toString).toList();
                default -> field.get(this);
            };
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read " + field.getName(), e);
        }
    }
}
