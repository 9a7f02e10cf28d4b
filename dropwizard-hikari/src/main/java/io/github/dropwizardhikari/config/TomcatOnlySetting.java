package io.github.dropwizardhikari.config;

import java.util.Arrays;
import java.util.Optional;

/**
 * Settings of Dropwizard's Tomcat-based {@code DataSourceFactory} that have no HikariCP counterpart.
 *
 * <p>They are accepted in a {@code hikari:} block so that a renamed {@code database:} block still parses, and
 * each one present logs a warning at startup that says what HikariCP does instead. Nothing is silently
 * dropped.</p>
 */
public enum TomcatOnlySetting {
    ABANDON_WHEN_PERCENTAGE_FULL("abandonWhenPercentageFull",
        "HikariCP never reclaims borrowed connections; use leakDetectionThreshold to find leaks"),
    ALTERNATE_USERNAMES_ALLOWED("alternateUsernamesAllowed",
        "HikariCP pools connections of the configured user only"),
    COMMIT_ON_RETURN("commitOnReturn",
        "HikariCP rolls back uncommitted work on return instead of committing it"),
    ROLLBACK_ON_RETURN("rollbackOnReturn",
        "HikariCP always rolls back uncommitted work when a connection is returned"),
    USE_FAIR_QUEUE("useFairQueue",
        "HikariCP hands connections to waiting threads directly; there is no queue to choose"),
    INITIAL_SIZE("initialSize",
        "HikariCP fills the pool up to minSize in the background"),
    LOG_ABANDONED_CONNECTIONS("logAbandonedConnections",
        "use leakDetectionThreshold to log the stack trace of a connection held too long"),
    LOG_VALIDATION_ERRORS("logValidationErrors",
        "HikariCP always logs failed validations"),
    CHECK_CONNECTION_WHILE_IDLE("checkConnectionWhileIdle",
        "HikariCP tests idle connections every keepaliveTime"),
    CHECK_CONNECTION_ON_BORROW("checkConnectionOnBorrow",
        "HikariCP validates a connection on borrow when it has been idle for more than 500 ms"),
    CHECK_CONNECTION_ON_CONNECT("checkConnectionOnConnect",
        "HikariCP always validates a new connection"),
    CHECK_CONNECTION_ON_RETURN("checkConnectionOnReturn",
        "HikariCP resets connection state on return and validates on the next borrow"),
    EVICTION_INTERVAL("evictionInterval",
        "HikariCP's housekeeper runs every 30 seconds; idle connections retire after minIdleTime"),
    VALIDATION_INTERVAL("validationInterval",
        "HikariCP skips validation for connections used within the last 500 ms"),
    VALIDATOR_CLASS_NAME("validatorClassName",
        "HikariCP validates with Connection.isValid() or validationQuery"),
    REMOVE_ABANDONED("removeAbandoned",
        "HikariCP never reclaims borrowed connections; use leakDetectionThreshold to find leaks"),
    REMOVE_ABANDONED_TIMEOUT("removeAbandonedTimeout",
        "use leakDetectionThreshold to log connections held longer than a threshold"),
    JDBC_INTERCEPTORS("jdbcInterceptors",
        "HikariCP's proxies already reset connection state and close open statements on return"),
    IGNORE_EXCEPTION_ON_PRE_LOAD("ignoreExceptionOnPreLoad",
        "set initializationFailTimeout to choose whether a failed first connection stops startup");

    private final String key;
    private final String advice;

    TomcatOnlySetting(String key, String advice) {
        this.key = key;
        this.advice = advice;
    }

    public String key() {
        return key;
    }

    public String advice() {
        return advice;
    }

    public static Optional<TomcatOnlySetting> forKey(String key) {
        return Arrays.stream(values()).filter(setting -> setting.key.equals(key)).findFirst();
    }
}
