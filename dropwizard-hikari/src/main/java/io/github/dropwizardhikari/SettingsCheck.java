package io.github.dropwizardhikari;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.SQLExceptionOverride;
import io.dropwizard.util.Duration;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.sql.Driver;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

import javax.sql.DataSource;

/**
 * One check of a factory's settings: its errors, the nearest safe value for each value HikariCP cannot honour, and
 * its warnings, each naming the setting as the block spells it. It writes nothing, so validating twice gives the same.
 */
final class SettingsCheck {
    static final Duration DEFAULT_IDLE_TIME = Duration.minutes(10);
    private static final Duration DEFAULT_VALIDATION_TIMEOUT = Duration.seconds(5);
    private static final Set<String> HEALTH_CHECK_PROPERTY_KEYS = Set.of("connectivityCheckTimeoutMs",
        "expected99thPercentileMs");
    // the settings Dropwizard has, with HikariCP's names for them: read once from the factory's @JsonAlias
    private static final Map<String, List<String>> ALIASES = aliases();

    /** An error in a setting, named as the block spells it; the message follows that name. */
    record Error(String field, String message) { }

    /** A value HikariCP cannot honour and the one used instead; {@code why} is null when nobody is to be told. */
    private record Adjusted(String asked, Object used, @Nullable String why) { }

    private final HikariDataSourceFactory factory;
    private final Origin origin;
    private final List<Error> errors = new ArrayList<>();
    private final Map<String, Adjusted> adjusted = new LinkedHashMap<>();
    private final Map<String, String> warnings = new LinkedHashMap<>();

    SettingsCheck(HikariDataSourceFactory factory) {
        this.factory = factory;
        this.origin = factory.origin();
        ALIASES.forEach((field, aliases) -> {
            List<String> given = new ArrayList<>(List.of(field));
            given.addAll(aliases);
            given.retainAll(origin.keys());
            if (given.size() > 1) {
                errors.add(new Error(field, "is given twice, as " + String.join(" and as ", given)
                    + ": these name the same setting; keep one"));
            }
        });
        checkFloors();
        for (String key : factory.getTomcatOnlySettings()) {
            warnings.put("tomcat:" + key, origin.pathOf(key) + ": ignoring this Tomcat pool setting: HikariCP has no "
                + "such setting; " + TomcatOnlySettings.ADVICE.get(key) + ".");
        }
        checkSources();
        checkPlaces();
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
        errorIf(!factory.getHealthCheckProperties().entrySet().stream().allMatch(entry ->
            HEALTH_CHECK_PROPERTY_KEYS.contains(entry.getKey()) && isNonNegativeLong(entry.getValue())),
            "healthCheckProperties", "accepts only connectivityCheckTimeoutMs and expected99thPercentileMs, "
                + "each a whole number of milliseconds (0 or more)");
    }

    List<Error> errors() {
        return List.copyOf(errors);
    }

    /** @return every warning, keyed by what it is about, each once: the adjusted values first */
    Map<String, String> warnings() {
        Map<String, String> all = new LinkedHashMap<>();
        adjusted.forEach((field, value) -> {
            if (value.why() != null) {
                all.put("adjusted:" + field, origin.pathOf(name(field)) + " is " + value.asked() + "; using "
                    + value.used() + " instead: " + value.why());
            }
        });
        all.putAll(warnings);
        return all;
    }

    @SuppressWarnings("unchecked")
    <T> T used(String field, T given) {
        Adjusted value = adjusted.get(field);
        return value == null ? given : (T) value.used();
    }

    SettingsCheck logOnce() {
        Logger logger = LoggerFactory.getLogger(factory.getClass());
        warnings().forEach((key, message) -> {
            if (factory.firstTime(key)) {
                logger.warn(message);
            }
        });
        return this;
    }

    SettingsCheck throwIfInvalid() {
        if (!errors.isEmpty()) {
            throw new IllegalStateException("invalid HikariCP configuration: " + errors.stream()
                .map(error -> origin.pathOf(error.field()) + " " + error.message())
                .collect(Collectors.joining("; ")));
        }
        return this;
    }

    static Duration validationTimeout(@Nullable Duration given, Duration maxWait) {
        Duration asked = given == null ? DEFAULT_VALIDATION_TIMEOUT : given;
        return asked.compareTo(maxWait) > 0 ? maxWait : asked;
    }

    // HikariCP 7.1's floors: below them HikariConfig.validate() replaces a value or turns the feature off
    private void checkFloors() {
        floor("maxWaitForConnection", factory.getMaxWaitForConnection(), 250, "",
            "HikariCP waits at least that long for a connection");
        floor("minIdleTime", factory.getMinIdleTime(), 10_000, "idle connections never retire",
            "HikariCP retires idle connections no sooner than that");
        floor("maxConnectionAge", factory.getMaxConnectionAge().orElse(null), 30_000, "no limit",
            "HikariCP retires connections no sooner than that");
        floor("keepaliveTime", factory.getKeepaliveTime(), 30_000, "off",
            "HikariCP tests idle connections no more often than that");
        floor("leakDetectionThreshold", factory.getLeakDetectionThreshold(), 2_000, "off",
            "HikariCP reports leaks held at least that long");
        floor("validationQueryTimeout", factory.getValidationQueryTimeout().orElse(null), 250, "",
            "HikariCP gives a connection test at least that long");
    }

    /**
     * Below HikariCP's floor, a setting Dropwizard has is raised to it (every block Dropwizard accepts starts), a
     * HikariCP-only one is an error. 0 means {@code zeroMeans} under HikariCP's name; Dropwizard refuses it.
     */
    private void floor(String field, @Nullable Duration value, long floorMillis, String zeroMeans, String why) {
        if (value == null) {
            return;
        }
        boolean dropwizards = ALIASES.containsKey(field);
        boolean hikariName = !dropwizards || !name(field).equals(field);
        Duration floor = readable(floorMillis);
        if (value.toNanoseconds() == 0 && !zeroMeans.isEmpty() && hikariName) {
            return;
        }
        if (dropwizards && value.toNanoseconds() <= 0) {
            error(field, "must be greater than 0 MILLISECONDS");
        } else if (dropwizards && value.toMilliseconds() < floorMillis) {
            adjust(field, value, floor, why);
        } else if (value.toMilliseconds() < floorMillis) {
            error(field, "must be " + (zeroMeans.isEmpty() ? "" : "0 (" + zeroMeans + ") or ") + "at least " + floor
                + ": " + why);
        }
    }

    /** Where an extension's place in the list changes what the pool does, it says which and why. */
    private void checkPlaces() {
        if (factory.getExtensions() != null && factory.getExtensions().stream().allMatch(Objects::nonNull)) {
            List<String> listed = factory.getExtensions().stream().map(ManagedHikariDataSource::typeName).toList();
            factory.getExtensions().forEach(extension -> extension.placeWarning(listed).ifPresent(why ->
                warnings.put("place:" + ManagedHikariDataSource.typeName(extension), origin.pathOf("extensions")
                    + ": " + why)));
        }
    }

    private void checkSources() {
        boolean url = isSet(factory.getUrl());
        boolean dataSource = factory.getDataSourceClassName().filter(SettingsCheck::isSet).isPresent();
        errorIf(url == dataSource, "url", url ? "must not be set together with dataSourceClassName"
            : "must be set (or dataSourceClassName instead)");
        errorIf(isSet(factory.getDriverClass()) && dataSource, "driverClass",
            "must not be set together with dataSourceClassName");
        loadable("driverClass", factory.getDriverClass(), Driver.class);
        loadable("dataSourceClassName", factory.getDataSourceClassName().orElse(null), DataSource.class);
        loadable("exceptionOverrideClassName", factory.getExceptionOverrideClassName().orElse(null),
            SQLExceptionOverride.class);
        loadable("credentialsProviderClassName", factory.getCredentialsProviderClassName().orElse(null),
            HikariCredentialsProvider.class);
    }

    /** A class HikariCP will load and instantiate: checked here, so {@code check} names the setting. */
    private void loadable(String field, @Nullable String className, Class<?> type) {
        if (!isSet(className)) {
            return;
        }
        String name = className.trim();
        Class<?> loaded = load(name);
        if (loaded == null) {
            error(field, "cannot be loaded: class " + name + " is not on the class path");
        } else if (!type.isAssignableFrom(loaded)) {
            error(field, "cannot be used: " + name + " is not a " + type.getName());
        } else if (Modifier.isAbstract(loaded.getModifiers())) {
            error(field, "cannot be used: " + name + " is abstract");
        } else {
            try {
                if (!Modifier.isPublic(loaded.getDeclaredConstructor().getModifiers())) {
                    error(field, "cannot be used: the constructor of " + name + " is not public");
                }
            } catch (NoSuchMethodException e) {
                error(field, "cannot be used: " + name + " has no constructor without arguments");
            }
        }
    }

    // as HikariCP loads it: the context class loader, else HikariCP's; without initializing the class
    private static @Nullable Class<?> load(String className) {
        for (ClassLoader loader : new ClassLoader[] {Thread.currentThread().getContextClassLoader(),
            HikariConfig.class.getClassLoader()}) {
            try {
                if (loader != null) {
                    return Class.forName(className, false, loader);
                }
            } catch (ClassNotFoundException | LinkageError e) {
                // try the next loader
            }
        }
        return null;
    }

    /** Dropwizard's size rules, on the sizes given; a {@code maxSize} not given grows to fit them. */
    private void checkSizes() {
        errorIf(!factory.isInitialSizeGreaterThanMinSize(), "initialSize", "must be greater than or equal to minSize");
        errorIf(!factory.isMinSizeLessThanMaxSize(), "minSize", "must be less than or equal to maxSize");
        errorIf(!factory.isInitialSizeLessThanMaxSize(), "initialSize", "must be less than or equal to maxSize");
        int used = factory.maxSizeUsed();
        if (!factory.isGiven("maxSize") && used > HikariDataSourceFactory.DEFAULT_MAX_SIZE) {
            String given = factory.isGiven("minSize") && factory.getMinSize() == used ? "minSize" : "initialSize";
            adjust("maxSize", HikariDataSourceFactory.DEFAULT_MAX_SIZE + " (default)", used,
                name(given) + " is " + used + " and the pool must be able to hold that many connections");
        }
    }

    /** {@code null} asks for the driver's own states, as in Dropwizard; HikariCP 7.1 always sets JDBC's. */
    private void checkConnectionStates() {
        String why = "HikariCP sets this state on every connection it hands out, so the driver's own default cannot "
            + "stay; JDBC's default is ";
        if (factory.getAutoCommitByDefault() == null) {
            adjust("autoCommitByDefault", null, true, why + "auto-commit on");
        }
        if (factory.getReadOnlyByDefault() == null) {
            adjust("readOnlyByDefault", null, false, why + "writable");
        }
    }

    /** HikariCP's rules between the lifetime and the other timers, on the lifetime raised to its floor. */
    private void checkLifetimes() {
        Duration maxConnectionAge = used("maxConnectionAge", factory.getMaxConnectionAge().orElse(null));
        long maxAge = maxConnectionAge == null ? 0 : maxConnectionAge.toMilliseconds();
        if (maxAge == 0) {
            return;
        }
        String lifetime = name("maxConnectionAge") + " (" + maxConnectionAge + ")";
        Duration minIdleTime = used("minIdleTime", factory.getMinIdleTime());
        long idle = minIdleTime.toMilliseconds();
        if (idle != 0 && idle + 1_000 > maxAge) {
            adjust("minIdleTime", minIdleTime, readable(maxAge - 1_000), "HikariCP needs it at least 1 second below "
                + lifetime + " and would otherwise never retire idle connections");
        }
        Duration keepaliveTime = factory.getKeepaliveTime();
        long keepalive = keepaliveTime.toMilliseconds();
        if (keepalive != 0 && keepalive >= maxAge) {
            String why = "HikariCP tests idle connections only more often than " + lifetime
                + ", which replaces them anyway";
            if (factory.isGiven("keepaliveTime")) {
                error("keepaliveTime", "must be less than " + name("maxConnectionAge") + ": " + why);
            } else {
                adjust("keepaliveTime", keepaliveTime + " (default)", Duration.seconds(0), why);
            }
        }
        errorIf(factory.getLeakDetectionThreshold().toMilliseconds() > maxAge, "leakDetectionThreshold",
            "must not be longer than " + lifetime + ": HikariCP would never report a leak");
    }

    /**
     * Without {@code minSize} HikariCP keeps {@code maxSize} connections open where Dropwizard's pool keeps up to 10
     * idle: said once. Such a pool closes no idle connection, so a stated {@code minIdleTime} becomes 0.
     */
    private void checkFixedPool() {
        int maxSize = factory.maxSizeUsed();
        if (factory.minSizeUsed() < maxSize) {
            return;
        }
        if (factory.isSingleConnection()) {
            // sized by Dropwizard's migrations command: nothing for the user to act on, so no warning
            adjusted.put("minIdleTime", new Adjusted(String.valueOf(factory.getMinIdleTime()), Duration.seconds(0),
                null));
            return;
        }
        boolean minSizeGiven = factory.isGiven("minSize");
        if (factory.isGiven("maxSize") && !minSizeGiven) {
            warnings.put("notice:maxSize", origin.pathOf(name("maxSize")) + " is " + maxSize + " and minSize is not "
                + "set: the pool opens " + maxSize + " connections and keeps them open (HikariCP's fixed-size pool), "
                + "where Dropwizard's pool closes idle connections above minSize, 10 by default; state minSize "
                + "(minSize: " + idleFloor(maxSize) + " for idle connections above it to close"
                + (maxSize > 10 ? ", as under Dropwizard's default" : "") + ", or minSize: " + maxSize
                + " to keep this fixed pool without this warning)");
        }
        Duration minIdleTime = used("minIdleTime", factory.getMinIdleTime());
        boolean stated = factory.isGiven("minIdleTime") || !minIdleTime.equals(DEFAULT_IDLE_TIME);
        if (minIdleTime.toMilliseconds() != 0 && stated) {
            adjust("minIdleTime", minIdleTime, Duration.seconds(0), (minSizeGiven
                ? "minSize equals maxSize (" + maxSize + "), so the pool keeps that many connections open"
                : "minSize is not set, so the pool keeps maxSize (" + maxSize + ") connections open")
                + " and closes no idle connection; set minSize below maxSize (minSize: " + idleFloor(maxSize)
                + ", say) for idle connections above it to close after minIdleTime");
        }
    }

    /** @return a minSize below {@code maxSize} to suggest: Dropwizard's default of 10 where that is below it */
    private static int idleFloor(int maxSize) {
        return maxSize > 10 ? 10 : maxSize / 2;
    }

    private void checkValidationTimeout() {
        Duration maxWait = used("maxWaitForConnection", factory.getMaxWaitForConnection());
        Duration validation = used("validationQueryTimeout", factory.getValidationQueryTimeout().orElse(null));
        if (validation != null && validation.compareTo(maxWait) > 0) {
            adjust("validationQueryTimeout", validation, maxWait, "a connection test must fit in "
                + name("maxWaitForConnection") + " (" + maxWait + "), or a borrow could wait longer than that");
        }
    }

    /** @return the name the block gave {@code field} under: an alias if it used one, else the field's own */
    private String name(String field) {
        return ALIASES.getOrDefault(field, List.of()).stream().filter(origin.keys()::contains).findFirst()
            .orElse(field);
    }

    private void error(String field, String message) {
        errorIf(true, field, message);
    }

    private void errorIf(boolean broken, String field, String message) {
        if (broken) {
            errors.add(new Error(name(field), message));
        }
    }

    /** Records the value to use; adjustments of one field merge, from the first asked to the last used. */
    private void adjust(String field, @Nullable Object asked, Object used, String why) {
        adjusted.merge(field, new Adjusted(String.valueOf(asked), used, why),
            (first, last) -> new Adjusted(first.asked(), last.used(), last.why()));
    }

    private static Map<String, List<String>> aliases() {
        return Arrays.stream(HikariDataSourceFactory.class.getDeclaredFields())
            .filter(field -> field.isAnnotationPresent(JsonAlias.class))
            .collect(Collectors.toUnmodifiableMap(Field::getName,
                field -> List.of(field.getAnnotation(JsonAlias.class).value())));
    }

    /** @return {@code millis} in the largest unit that holds it exactly, for messages */
    private static Duration readable(long millis) {
        return millis != 0 && millis % 60_000 == 0 ? Duration.minutes(millis / 60_000)
            : millis % 1_000 == 0 ? Duration.seconds(millis / 1_000) : Duration.milliseconds(millis);
    }

    private static boolean isSet(@Nullable String value) {
        return value != null && !value.isBlank();
    }

    private static boolean isNonNegativeLong(@Nullable String value) {
        try {
            return value != null && Long.parseLong(value.trim()) >= 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
