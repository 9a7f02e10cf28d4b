package io.github.dropwizardhikari;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * The settings of Dropwizard's Tomcat pool that HikariCP does not have, with {@code DataSourceFactory}'s signatures
 * and constraints, so a renamed {@code database:} block still parses and Java callers still compile. Each one given
 * is warned about once, except those the bundle honours; a getter returns what was set. It also remembers which
 * settings a block gives: a few rules tell a value given from the default. Public because a package-private
 * superclass would show its setters to reflection through bridge methods that lose their generic types.
 */
// read from YAML, never written to JSON: they describe no pool
@JsonIgnoreProperties(value = {"abandonWhenPercentageFull", "alternateUsernamesAllowed", "commitOnReturn",
    "rollbackOnReturn", "useFairQueue", "initialSize", "logAbandonedConnections", "logValidationErrors",
    "checkConnectionWhileIdle", "checkConnectionOnBorrow", "checkConnectionOnConnect", "checkConnectionOnReturn",
    "evictionInterval", "validationInterval", "validatorClassName", "removeAbandoned", "removeAbandonedTimeout",
    "jdbcInterceptors", "ignoreExceptionOnPreLoad"}, allowSetters = true)
public abstract class TomcatOnlySettings {
    // what HikariCP does instead, completing "HikariCP has no such setting; ..."
    static final Map<String, String> ADVICE = Map.ofEntries(
        Map.entry("abandonWhenPercentageFull", "removeAbandoned aborts a connection held past "
            + "removeAbandonedTimeout however full the pool is"),
        Map.entry("alternateUsernamesAllowed", "HikariCP pools connections of the configured user only"),
        Map.entry("commitOnReturn", "HikariCP rolls back uncommitted work on return instead of committing it"),
        Map.entry("rollbackOnReturn", "HikariCP always rolls back uncommitted work when a connection is returned"),
        Map.entry("useFairQueue", "HikariCP hands connections to waiting threads directly; the fair-borrowing "
            + "extension makes borrowers wait in arrival order"),
        Map.entry("initialSize", "HikariCP fills the pool up to minSize in the background"),
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
        Map.entry("jdbcInterceptors", "HikariCP's proxies already reset connection state and close open statements "
            + "on return"),
        Map.entry("ignoreExceptionOnPreLoad", "set initializationFailTimeout to choose whether a failed first "
            + "connection stops startup"));

    // the settings given, with their values; a Tomcat-only one lives only here, its constraints on its getter
    @JsonIgnore
    private final Map<String, Object> given = Collections.synchronizedMap(new LinkedHashMap<>());

    // HikariCP honours it, and its getter follows minSize until it is given, so its constraint is on the value given
    @Min(0)
    private int initialSize;

    TomcatOnlySettings() { }

    /** @return the minimum number of idle connections; {@code initialSize}'s default */
    public abstract int getMinSize();

    @Min(0)
    @Max(100)
    public int getAbandonWhenPercentageFull() {
        return value("abandonWhenPercentageFull", 0);
    }

    @Deprecated
    public void setAbandonWhenPercentageFull(int percentage) {
        given("abandonWhenPercentageFull", percentage);
    }

    public boolean isAlternateUsernamesAllowed() {
        return value("alternateUsernamesAllowed", false);
    }

    @Deprecated
    public void setAlternateUsernamesAllowed(boolean allow) {
        given("alternateUsernamesAllowed", allow);
    }

    public boolean getCommitOnReturn() {
        return value("commitOnReturn", false);
    }

    @Deprecated
    public void setCommitOnReturn(boolean commitOnReturn) {
        given("commitOnReturn", commitOnReturn);
    }

    public boolean getRollbackOnReturn() {
        return value("rollbackOnReturn", false);
    }

    @Deprecated
    public void setRollbackOnReturn(boolean rollbackOnReturn) {
        given("rollbackOnReturn", rollbackOnReturn);
    }

    public boolean getUseFairQueue() {
        return value("useFairQueue", true);
    }

    @Deprecated
    public void setUseFairQueue(boolean fair) {
        given("useFairQueue", fair);
    }

    /** @return {@code initialSize} as given, or else {@code minSize} */
    public int getInitialSize() {
        return isGiven("initialSize") ? initialSize : getMinSize();
    }

    @Deprecated
    public void setInitialSize(int initialSize) {
        this.initialSize = given("initialSize", initialSize);
    }

    public boolean getLogAbandonedConnections() {
        return value("logAbandonedConnections", false);
    }

    @Deprecated
    public void setLogAbandonedConnections(boolean log) {
        given("logAbandonedConnections", log);
    }

    public boolean getLogValidationErrors() {
        return value("logValidationErrors", false);
    }

    @Deprecated
    public void setLogValidationErrors(boolean log) {
        given("logValidationErrors", log);
    }

    public boolean getCheckConnectionWhileIdle() {
        return value("checkConnectionWhileIdle", true);
    }

    @Deprecated
    public void setCheckConnectionWhileIdle(boolean checkConnectionWhileIdle) {
        given("checkConnectionWhileIdle", checkConnectionWhileIdle);
    }

    public boolean getCheckConnectionOnBorrow() {
        return value("checkConnectionOnBorrow", false);
    }

    @Deprecated
    public void setCheckConnectionOnBorrow(boolean checkConnectionOnBorrow) {
        given("checkConnectionOnBorrow", checkConnectionOnBorrow);
    }

    public boolean getCheckConnectionOnConnect() {
        return value("checkConnectionOnConnect", true);
    }

    @Deprecated
    public void setCheckConnectionOnConnect(boolean checkConnectionOnConnect) {
        given("checkConnectionOnConnect", checkConnectionOnConnect);
    }

    public boolean getCheckConnectionOnReturn() {
        return value("checkConnectionOnReturn", false);
    }

    @Deprecated
    public void setCheckConnectionOnReturn(boolean checkConnectionOnReturn) {
        given("checkConnectionOnReturn", checkConnectionOnReturn);
    }

    @NotNull
    @MinDuration(value = 0, unit = TimeUnit.MILLISECONDS, inclusive = false)
    public Duration getEvictionInterval() {
        return value("evictionInterval", Duration.seconds(5));
    }

    @Deprecated
    public void setEvictionInterval(Duration interval) {
        given("evictionInterval", interval);
    }

    @NotNull
    @MinDuration(value = 50, unit = TimeUnit.MILLISECONDS)
    public Duration getValidationInterval() {
        return value("validationInterval", Duration.seconds(30));
    }

    @Deprecated
    public void setValidationInterval(Duration validationInterval) {
        given("validationInterval", validationInterval);
    }

    public Optional<String> getValidatorClassName() {
        return value("validatorClassName", Optional.empty());
    }

    @Deprecated
    public void setValidatorClassName(Optional<String> validatorClassName) {
        given("validatorClassName", validatorClassName);
    }

    public boolean isRemoveAbandoned() {
        return value("removeAbandoned", false);
    }

    @Deprecated
    public void setRemoveAbandoned(boolean removeAbandoned) {
        given("removeAbandoned", removeAbandoned);
    }

    @NotNull
    @MinDuration(value = 0, unit = TimeUnit.MILLISECONDS, inclusive = false)
    public Duration getRemoveAbandonedTimeout() {
        return value("removeAbandonedTimeout", Duration.seconds(60));
    }

    @Deprecated
    public void setRemoveAbandonedTimeout(Duration removeAbandonedTimeout) {
        given("removeAbandonedTimeout", requireNonNull(removeAbandonedTimeout));
    }

    public Optional<String> getJdbcInterceptors() {
        return value("jdbcInterceptors", Optional.empty());
    }

    @Deprecated
    public void setJdbcInterceptors(Optional<String> jdbcInterceptors) {
        given("jdbcInterceptors", jdbcInterceptors);
    }

    public boolean isIgnoreExceptionOnPreLoad() {
        return value("ignoreExceptionOnPreLoad", false);
    }

    @Deprecated
    public void setIgnoreExceptionOnPreLoad(boolean ignoreExceptionOnPreLoad) {
        given("ignoreExceptionOnPreLoad", ignoreExceptionOnPreLoad);
    }

    /** @return the Tomcat-only settings this block gives that HikariCP cannot honour, each warned about once */
    @JsonIgnore
    public Set<String> getTomcatOnlySettings() {
        Set<String> tomcatOnly = new LinkedHashSet<>();
        // a synchronized map's forEach holds its lock
        given.forEach((key, value) -> {
            boolean honoured = key.equals("initialSize") && Integer.valueOf(0).equals(value)
                || key.equals("ignoreExceptionOnPreLoad") && Boolean.TRUE.equals(value);
            if (ADVICE.containsKey(key) && !honoured) {
                tomcatOnly.add(key);
            }
        });
        return Collections.unmodifiableSet(tomcatOnly);
    }

    boolean isGiven(String key) {
        return given.containsKey(key);
    }

    /** For Dropwizard's single-connection pool: an {@code initialSize} given becomes 1; else it follows minSize. */
    void singleConnectionInitialSize() {
        if (isGiven("initialSize")) {
            initialSize = given("initialSize", 1);
        }
    }

    <V> V given(String key, V value) {
        given.put(key, value);
        return value;
    }

    /** @return the value given for {@code key} (even {@code null}), or else {@code otherwise} */
    @SuppressWarnings("unchecked")
    private <V> V value(String key, V otherwise) {
        return (V) given.getOrDefault(key, otherwise);
    }
}
