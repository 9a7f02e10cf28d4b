package io.github.dropwizardhikari;

import io.dropwizard.db.DataSourceFactory.TransactionIsolation;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.config.HikariFloors;
import io.github.dropwizardhikari.config.RuleCheck;
import io.github.dropwizardhikari.credentials.CredentialsFactory;
import org.jspecify.annotations.Nullable;

import java.util.Map;
import java.util.Set;

/**
 * The factory's rules between fields. Each value HikariCP cannot honour exactly gets the nearest safe one to use
 * instead, reported with why; what Dropwizard refuses, and HikariCP-only settings out of range, are errors. It
 * reads the factory and writes nothing: the values to use stay in the {@link RuleCheck}.
 */
final class SettingsRules {
    private static final Set<String> HEALTH_CHECK_PROPERTY_KEYS = Set.of("connectivityCheckTimeoutMs",
        "expected99thPercentileMs");
    static final Duration HIKARI_DEFAULT_IDLE_TIME = Duration.minutes(10);
    private static final Duration DEFAULT_VALIDATION_TIMEOUT = Duration.seconds(5);

    private final HikariDataSourceFactory factory;
    private final RuleCheck check;

    private SettingsRules(HikariDataSourceFactory factory, RuleCheck check) {
        this.factory = factory;
        this.check = check;
    }

    static void check(HikariDataSourceFactory factory, RuleCheck check) {
        new SettingsRules(factory, check).run();
    }

    private void run() {
        for (String key : factory.getTomcatOnlySettings()) {
            check.warn("tomcat:" + key, TomcatOnlySettings.tomcatOnlyWarning(check.origin().pathOf(key), key));
        }
        boolean url = isSet(factory.getUrl());
        boolean dataSource = factory.getDataSourceClassName().filter(SettingsRules::isSet).isPresent();
        if (url == dataSource) {
            check.error("url", url ? "must not be set together with dataSourceClassName"
                : "must be set (or dataSourceClassName instead)");
        }
        if (isSet(factory.getDriverClass()) && dataSource) {
            check.error("driverClass", "must not be set together with dataSourceClassName");
        }
        checkSizes();
        checkConnectionStates();
        if (factory.getMaxWaitForConnection() == null || factory.getMinIdleTime() == null
            || factory.getKeepaliveTime() == null || factory.getLeakDetectionThreshold() == null
            || factory.getHealthCheckProperties() == null) {
            return; // reported by @NotNull; the rules below need every timer
        }
        checkLifetimes();
        checkFixedPool();
        checkValidationTimeout();
        if (!isHealthCheckPropertiesValid(factory.getHealthCheckProperties())) {
            check.error("healthCheckProperties", "accepts only connectivityCheckTimeoutMs and "
                + "expected99thPercentileMs, each a whole number of milliseconds (0 or more)");
        }
        factory.getCredentials().ifPresent(this::checkCredentials);
    }

    /** @return {@code maxConnectionAge} as the pool uses it, raised to HikariCP's floor; {@code null}: no limit */
    @Nullable
    private Duration maxConnectionAge() {
        return check.used("maxConnectionAge", factory.getMaxConnectionAge().orElse(null));
    }

    /**
     * One source per credential: the {@code credentials} files, a provider class, or {@code user} and
     * {@code password}. Warns when connections may outlive a credential's lifetime.
     */
    private void checkCredentials(CredentialsFactory credentials) {
        if (factory.getCredentialsProviderClassName().isPresent()) {
            check.error("credentials", "must not be set together with credentialsProviderClassName (a pool has one "
                + "credentials provider)");
        }
        if (factory.getUser() != null && credentials.getUserFile().isPresent()) {
            check.error("user", "must not be set together with credentials.userFile (two sources for one setting)");
        }
        if (factory.getPassword() != null && credentials.getPasswordFile().isPresent()) {
            check.error("password", "must not be set together with credentials.passwordFile (two sources for one "
                + "setting)");
        }
        credentials.lifetimeWarning(check.origin().pathOf("credentials"), maxConnectionAge())
            .ifPresent(warning -> check.warn("credentials.lifetime", warning));
    }

    /**
     * Dropwizard's size rules apply to the sizes the block gives. The defaults differ from Dropwizard's: when
     * {@code maxSize} is not given, it grows to a larger {@code minSize} or {@code initialSize}.
     */
    private void checkSizes() {
        if (!factory.isInitialSizeGreaterThanMinSize()) {
            check.error("initialSize", "must be greater than or equal to minSize");
        }
        if (factory.isGiven("maxSize")) {
            if (!factory.isMinSizeLessThanMaxSize()) {
                check.error("minSize", "must be less than or equal to maxSize");
            }
            if (!factory.isInitialSizeLessThanMaxSize()) {
                check.error("initialSize", "must be less than or equal to maxSize");
            }
            return;
        }
        int used = factory.getMaxSize();
        if (used > HikariDataSourceFactory.DEFAULT_MAX_SIZE) {
            String given = factory.isGiven("minSize") && factory.getMinSize() == used ? "minSize" : "initialSize";
            check.adjusted("maxSize", HikariDataSourceFactory.DEFAULT_MAX_SIZE + " (default)", used,
                given + " is " + used + " and the pool must be able to hold that many connections");
        }
    }

    /**
     * In Java, {@code null} asks for the driver's own auto-commit and read-only states, as in Dropwizard; HikariCP
     * 7.1 has no such choice, so the pool uses JDBC's defaults.
     */
    private void checkConnectionStates() {
        String why = "HikariCP sets this state on every connection it hands out, so the driver's own default cannot "
            + "stay; JDBC's default is ";
        if (factory.getAutoCommitByDefault() == null) {
            check.adjusted("autoCommitByDefault", null, true, why + "auto-commit on");
        }
        if (factory.getReadOnlyByDefault() == null) {
            check.adjusted("readOnlyByDefault", null, false, why + "writable");
        }
    }

    /** HikariCP's rules between the lifetime and the other timers, on the lifetime raised to its floor. */
    private void checkLifetimes() {
        Duration maxConnectionAge = maxConnectionAge();
        long maxAge = maxConnectionAge == null ? 0 : maxConnectionAge.toMilliseconds();
        if (maxAge == 0) {
            return;
        }
        Duration minIdleTime = check.used("minIdleTime", factory.getMinIdleTime());
        long idle = minIdleTime.toMilliseconds();
        if (idle != 0 && idle + HikariFloors.IDLE_BELOW_LIFETIME_MS > maxAge) {
            String why = "HikariCP needs it at least " + HikariFloors.readable(HikariFloors.IDLE_BELOW_LIFETIME_MS)
                + " below maxConnectionAge (" + maxConnectionAge + ") and would otherwise never retire idle "
                + "connections";
            if (check.underHikariName("minIdleTime")) {
                check.error("minIdleTime", "is too close to maxConnectionAge: " + why);
            } else {
                check.adjusted("minIdleTime", minIdleTime,
                    HikariFloors.readable(maxAge - HikariFloors.IDLE_BELOW_LIFETIME_MS), why);
            }
        }
        Duration keepaliveTime = factory.getKeepaliveTime();
        long keepalive = keepaliveTime.toMilliseconds();
        if (keepalive != 0 && keepalive >= maxAge) {
            String why = "HikariCP tests idle connections only more often than maxConnectionAge ("
                + maxConnectionAge + "), which replaces them anyway";
            if (factory.isGiven("keepaliveTime")) {
                check.error("keepaliveTime", "must be less than maxConnectionAge: " + why);
            } else {
                check.adjusted("keepaliveTime", keepaliveTime + " (default)", Duration.seconds(0), why);
            }
        }
        if (factory.getLeakDetectionThreshold().toMilliseconds() > maxAge) {
            check.error("leakDetectionThreshold", "must not be longer than maxConnectionAge (" + maxConnectionAge
                + "): HikariCP would never report a leak");
        }
    }

    /**
     * Without {@code minSize} HikariCP keeps {@code maxSize} connections open (its fixed-size pool) where Dropwizard's
     * pool keeps up to 10 idle: said once, so that {@code check} shows it. On such a pool HikariCP closes no idle
     * connection, so a stated {@code minIdleTime} has no effect: it is said in the block's names, and HikariCP gets
     * 0, which it accepts silently (HikariCP 7.1 warns about any other value there).
     */
    private void checkFixedPool() {
        int maxSize = factory.getMaxSize();
        if (factory.getMinSize() < maxSize) {
            return;
        }
        boolean minSizeGiven = factory.isGiven("minSize");
        String why = minSizeGiven
            ? "minSize equals maxSize (" + maxSize + "), so the pool keeps that many connections open"
            : "minSize is not set, so the pool keeps maxSize (" + maxSize + ") connections open";
        if (factory.isGiven("maxSize") && !minSizeGiven) {
            check.notice("maxSize", "is " + maxSize + " and minSize is not set: the pool opens " + maxSize
                + " connections and keeps them open (HikariCP's fixed-size pool), where Dropwizard's pool closes "
                + "idle connections above minSize, 10 by default; state minSize (minSize: 10 for Dropwizard's "
                + "behaviour, or minSize: " + maxSize + " to keep this fixed pool without this warning)");
        }
        Duration minIdleTime = check.used("minIdleTime", factory.getMinIdleTime());
        boolean stated = factory.isGiven("minIdleTime") || !minIdleTime.equals(HIKARI_DEFAULT_IDLE_TIME);
        if (minIdleTime.toMilliseconds() != 0 && stated) {
            check.adjusted("minIdleTime", minIdleTime, Duration.seconds(0), why + " and closes no idle connection; "
                + "set minSize below maxSize (Dropwizard's default is 10) for idle connections above it to close "
                + "after minIdleTime");
        }
    }

    private void checkValidationTimeout() {
        Duration given = factory.validationQueryTimeoutGiven();
        Duration maxWait = check.used("maxWaitForConnection", factory.getMaxWaitForConnection());
        Duration validation = check.used("validationQueryTimeout", given);
        if (validation == null || !longerThan(validation, maxWait)) {
            return;
        }
        String why = "a connection test must fit in maxWaitForConnection (" + maxWait + "), or a borrow could wait "
            + "longer than that";
        if (check.underHikariName("validationQueryTimeout")) {
            check.error("validationQueryTimeout", "must not be longer than maxWaitForConnection: " + why);
        } else {
            check.adjusted("validationQueryTimeout", validation, maxWait, why);
        }
    }

    /** @return the validation timeout the pool uses: as given, or else 5 seconds; at most {@code maxWait} */
    static Duration validationTimeout(@Nullable Duration given, Duration maxWait) {
        Duration asked = given == null ? DEFAULT_VALIDATION_TIMEOUT : given;
        return longerThan(asked, maxWait) ? maxWait : asked;
    }

    static boolean longerThan(Duration value, Duration other) {
        return value.toNanoseconds() > other.toNanoseconds();
    }

    private static boolean isSet(@Nullable String value) {
        return value != null && !value.isBlank();
    }

    private static boolean isHealthCheckPropertiesValid(Map<String, String> properties) {
        return properties.entrySet().stream().allMatch(entry ->
            HEALTH_CHECK_PROPERTY_KEYS.contains(entry.getKey()) && isNonNegativeLong(entry.getValue()));
    }

    private static boolean isNonNegativeLong(@Nullable String value) {
        try {
            return value != null && Long.parseLong(value.trim()) >= 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
