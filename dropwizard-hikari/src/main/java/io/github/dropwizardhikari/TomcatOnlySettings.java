package io.github.dropwizardhikari;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * The settings of Dropwizard's Tomcat pool that HikariCP does not have, with {@code DataSourceFactory}'s signatures
 * and constraints, so a {@code database:} block renamed to {@code hikari:} still parses and Java callers still
 * compile. Each one given is warned about once, saying what HikariCP does instead, except the two HikariCP honours
 * ({@code initialSize: 0}, {@code ignoreExceptionOnPreLoad: true}: start with the database down). It also remembers
 * which settings a block gives, in YAML or Java: a few rules tell a value given from the default.
 *
 * <p>Public because its setters are {@link HikariDataSourceFactory}'s API (a package-private superclass would show
 * them to reflection through bridge methods that lose their generic types); nothing else extends it.</p>
 */
// read from YAML, never written to JSON: they describe no pool
@JsonIgnoreProperties(value = {"abandonWhenPercentageFull", "alternateUsernamesAllowed", "commitOnReturn",
    "rollbackOnReturn", "useFairQueue", "initialSize", "logAbandonedConnections", "logValidationErrors",
    "checkConnectionWhileIdle", "checkConnectionOnBorrow", "checkConnectionOnConnect", "checkConnectionOnReturn",
    "evictionInterval", "validationInterval", "validatorClassName", "removeAbandoned", "removeAbandonedTimeout",
    "jdbcInterceptors", "ignoreExceptionOnPreLoad"}, allowSetters = true)
public abstract class TomcatOnlySettings {
    private static final String LEAKS = "HikariCP never reclaims borrowed connections; use leakDetectionThreshold to "
        + "find leaks";
    // what HikariCP does instead, completing "HikariCP has no such setting; ..."
    private static final Map<String, String> ADVICE = Map.ofEntries(
        Map.entry("abandonWhenPercentageFull", LEAKS),
        Map.entry("alternateUsernamesAllowed", "HikariCP pools connections of the configured user only"),
        Map.entry("commitOnReturn", "HikariCP rolls back uncommitted work on return instead of committing it"),
        Map.entry("rollbackOnReturn", "HikariCP always rolls back uncommitted work when a connection is returned"),
        Map.entry("useFairQueue", "HikariCP hands connections to waiting threads directly; the fair-borrowing "
            + "extension makes borrowers wait in arrival order"),
        Map.entry("initialSize", "HikariCP fills the pool up to minSize in the background"),
        Map.entry("logAbandonedConnections", "use leakDetectionThreshold to log the stack trace of a connection held "
            + "too long"),
        Map.entry("logValidationErrors", "HikariCP always logs failed validations"),
        Map.entry("checkConnectionWhileIdle", "HikariCP tests idle connections every keepaliveTime"),
        Map.entry("checkConnectionOnBorrow", "HikariCP validates a connection on borrow when it has been idle for "
            + "more than 500 ms"),
        Map.entry("checkConnectionOnConnect", "HikariCP always validates a new connection"),
        Map.entry("checkConnectionOnReturn", "HikariCP resets connection state on return and validates on the next "
            + "borrow"),
        Map.entry("evictionInterval", "HikariCP looks for idle connections to retire every 30 seconds; they "
            + "retire after minIdleTime"),
        Map.entry("validationInterval", "HikariCP skips validation for connections used within the last 500 ms"),
        Map.entry("validatorClassName", "HikariCP validates with Connection.isValid() or validationQuery"),
        Map.entry("removeAbandoned", LEAKS),
        Map.entry("removeAbandonedTimeout", "use leakDetectionThreshold to log connections held longer than a "
            + "threshold"),
        Map.entry("jdbcInterceptors", "HikariCP's proxies already reset connection state and close open statements "
            + "on return"),
        Map.entry("ignoreExceptionOnPreLoad", "set initializationFailTimeout to choose whether a failed first "
            + "connection stops startup"));

    // the settings given, by their own names: a Java setter or a YAML key (Jackson calls the setter) adds its name
    @JsonIgnore
    private final Set<String> given = Collections.synchronizedSet(new LinkedHashSet<>());

    @Min(0)
    @Max(100)
    private int abandonWhenPercentageFull = 0;
    private boolean alternateUsernamesAllowed = false;
    private boolean commitOnReturn = false;
    private boolean rollbackOnReturn = false;
    private boolean useFairQueue = true;
    /** Read only once given; until then the getter follows {@code minSize}, whichever order the setters run in. */
    @Min(0)
    private int initialSize;
    private boolean logAbandonedConnections = false;
    private boolean logValidationErrors = false;
    private boolean checkConnectionWhileIdle = true;
    private boolean checkConnectionOnBorrow = false;
    private boolean checkConnectionOnConnect = true;
    private boolean checkConnectionOnReturn = false;
    @NotNull
    @MinDuration(value = 0, unit = TimeUnit.MILLISECONDS, inclusive = false)
    private Duration evictionInterval = Duration.seconds(5);
    @NotNull
    @MinDuration(value = 50, unit = TimeUnit.MILLISECONDS)
    private Duration validationInterval = Duration.seconds(30);
    private Optional<String> validatorClassName = Optional.empty();
    private boolean removeAbandoned = false;
    @NotNull
    @MinDuration(value = 0, unit = TimeUnit.MILLISECONDS, inclusive = false)
    private Duration removeAbandonedTimeout = Duration.seconds(60);
    private Optional<String> jdbcInterceptors = Optional.empty();
    private boolean ignoreExceptionOnPreLoad = false;

    TomcatOnlySettings() {
    }

    /** @return the minimum number of idle connections; {@code initialSize}'s default */
    public abstract int getMinSize();

    @Deprecated
    public int getAbandonWhenPercentageFull() {
        return abandonWhenPercentageFull;
    }

    @Deprecated
    public void setAbandonWhenPercentageFull(int percentage) {
        this.abandonWhenPercentageFull = given("abandonWhenPercentageFull", percentage);
    }

    @Deprecated
    public boolean isAlternateUsernamesAllowed() {
        return alternateUsernamesAllowed;
    }

    @Deprecated
    public void setAlternateUsernamesAllowed(boolean allow) {
        this.alternateUsernamesAllowed = given("alternateUsernamesAllowed", allow);
    }

    @Deprecated
    public boolean getCommitOnReturn() {
        return commitOnReturn;
    }

    @Deprecated
    public void setCommitOnReturn(boolean commitOnReturn) {
        this.commitOnReturn = given("commitOnReturn", commitOnReturn);
    }

    @Deprecated
    public boolean getRollbackOnReturn() {
        return rollbackOnReturn;
    }

    @Deprecated
    public void setRollbackOnReturn(boolean rollbackOnReturn) {
        this.rollbackOnReturn = given("rollbackOnReturn", rollbackOnReturn);
    }

    @Deprecated
    public boolean getUseFairQueue() {
        return useFairQueue;
    }

    @Deprecated
    public void setUseFairQueue(boolean fair) {
        this.useFairQueue = given("useFairQueue", fair);
    }

    /** @return {@code initialSize} as given, or else {@code minSize} */
    @Deprecated
    public int getInitialSize() {
        return isGiven("initialSize") ? initialSize : getMinSize();
    }

    @Deprecated
    public void setInitialSize(int initialSize) {
        this.initialSize = given("initialSize", initialSize);
    }

    @Deprecated
    public boolean getLogAbandonedConnections() {
        return logAbandonedConnections;
    }

    @Deprecated
    public void setLogAbandonedConnections(boolean log) {
        this.logAbandonedConnections = given("logAbandonedConnections", log);
    }

    @Deprecated
    public boolean getLogValidationErrors() {
        return logValidationErrors;
    }

    @Deprecated
    public void setLogValidationErrors(boolean log) {
        this.logValidationErrors = given("logValidationErrors", log);
    }

    @Deprecated
    public boolean getCheckConnectionWhileIdle() {
        return checkConnectionWhileIdle;
    }

    @Deprecated
    public void setCheckConnectionWhileIdle(boolean checkConnectionWhileIdle) {
        this.checkConnectionWhileIdle = given("checkConnectionWhileIdle", checkConnectionWhileIdle);
    }

    @Deprecated
    public boolean getCheckConnectionOnBorrow() {
        return checkConnectionOnBorrow;
    }

    @Deprecated
    public void setCheckConnectionOnBorrow(boolean checkConnectionOnBorrow) {
        this.checkConnectionOnBorrow = given("checkConnectionOnBorrow", checkConnectionOnBorrow);
    }

    @Deprecated
    public boolean getCheckConnectionOnConnect() {
        return checkConnectionOnConnect;
    }

    @Deprecated
    public void setCheckConnectionOnConnect(boolean checkConnectionOnConnect) {
        this.checkConnectionOnConnect = given("checkConnectionOnConnect", checkConnectionOnConnect);
    }

    @Deprecated
    public boolean getCheckConnectionOnReturn() {
        return checkConnectionOnReturn;
    }

    @Deprecated
    public void setCheckConnectionOnReturn(boolean checkConnectionOnReturn) {
        this.checkConnectionOnReturn = given("checkConnectionOnReturn", checkConnectionOnReturn);
    }

    @Deprecated
    public Duration getEvictionInterval() {
        return evictionInterval;
    }

    @Deprecated
    public void setEvictionInterval(Duration interval) {
        this.evictionInterval = given("evictionInterval", interval);
    }

    @Deprecated
    public Duration getValidationInterval() {
        return validationInterval;
    }

    @Deprecated
    public void setValidationInterval(Duration validationInterval) {
        this.validationInterval = given("validationInterval", validationInterval);
    }

    @Deprecated
    public Optional<String> getValidatorClassName() {
        return validatorClassName;
    }

    @Deprecated
    public void setValidatorClassName(Optional<String> validatorClassName) {
        this.validatorClassName = given("validatorClassName", validatorClassName);
    }

    @Deprecated
    public boolean isRemoveAbandoned() {
        return removeAbandoned;
    }

    @Deprecated
    public void setRemoveAbandoned(boolean removeAbandoned) {
        this.removeAbandoned = given("removeAbandoned", removeAbandoned);
    }

    @Deprecated
    public Duration getRemoveAbandonedTimeout() {
        return removeAbandonedTimeout;
    }

    @Deprecated
    public void setRemoveAbandonedTimeout(Duration removeAbandonedTimeout) {
        this.removeAbandonedTimeout = given("removeAbandonedTimeout", requireNonNull(removeAbandonedTimeout));
    }

    @Deprecated
    public Optional<String> getJdbcInterceptors() {
        return jdbcInterceptors;
    }

    @Deprecated
    public void setJdbcInterceptors(Optional<String> jdbcInterceptors) {
        this.jdbcInterceptors = given("jdbcInterceptors", jdbcInterceptors);
    }

    @Deprecated
    public boolean isIgnoreExceptionOnPreLoad() {
        return ignoreExceptionOnPreLoad;
    }

    @Deprecated
    public void setIgnoreExceptionOnPreLoad(boolean ignoreExceptionOnPreLoad) {
        this.ignoreExceptionOnPreLoad = given("ignoreExceptionOnPreLoad", ignoreExceptionOnPreLoad);
    }

    /** @return the Tomcat-only settings this block gives that HikariCP cannot honour, each warned about once */
    @JsonIgnore
    public Set<String> getTomcatOnlySettings() {
        Set<String> tomcatOnly = new LinkedHashSet<>();
        Set<String> givenSettings;
        synchronized (given) {
            givenSettings = Set.copyOf(given);
        }
        for (String key : givenSettings) {
            boolean honoured = key.equals("initialSize") && initialSize == 0
                || key.equals("ignoreExceptionOnPreLoad") && ignoreExceptionOnPreLoad;
            if (ADVICE.containsKey(key) && !honoured) {
                tomcatOnly.add(key);
            }
        }
        return Collections.unmodifiableSet(tomcatOnly);
    }

    /** @return the warning for the Tomcat-only setting {@code key}, starting with its full path */
    static String tomcatOnlyWarning(String path, String key) {
        String advice = requireNonNull(ADVICE.get(key), () -> key + " is not a Tomcat-only setting");
        return path + ": ignoring this Tomcat pool setting: HikariCP has no such setting; " + advice + ".";
    }

    // the deprecated getters' twins, for callers that are not deprecated
    int initialSize() {
        return getInitialSize();
    }

    boolean ignoresExceptionOnPreLoad() {
        return ignoreExceptionOnPreLoad;
    }

    boolean isGiven(String key) {
        return given.contains(key);
    }

    /**
     * For Dropwizard's single-connection pool: an {@code initialSize} given becomes 1 (and is still warned about);
     * one not given follows {@code minSize} and is not recorded, so it gives nothing to warn about.
     */
    void singleConnectionInitialSize() {
        if (isGiven("initialSize")) {
            initialSize = 1;
        }
    }

    /** @return {@code value}, recording that {@code key} was given */
    <V> V given(String key, V value) {
        given.add(key);
        return value;
    }
}
