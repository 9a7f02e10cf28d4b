package io.github.dropwizardhikari.dropin;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Draws random {@code database:} blocks over every field of Dropwizard's {@code DataSourceFactory}, with values
 * across and beyond both pools' limits: durations around HikariCP's floors (250 ms, 2 s, 10 s, 30 s) and
 * Dropwizard's (more than 0, 50 ms), sub-millisecond ones and ones of hours and days, sizes from 0 to 200 (and a
 * few negative), every isolation level and every Tomcat-only key. The url is always a fresh in-memory H2 database.
 */
final class BlockGenerator {
    /** Every duration field of {@code DataSourceFactory}. */
    static final List<String> DURATION_FIELDS = List.of("maxWaitForConnection", "minIdleTime", "maxConnectionAge",
        "validationQueryTimeout", "evictionInterval", "validationInterval", "removeAbandonedTimeout");

    static final List<String> SIZE_FIELDS = List.of("initialSize", "minSize", "maxSize");

    static final List<String> BOOLEAN_FIELDS = List.of("alternateUsernamesAllowed", "commitOnReturn",
        "rollbackOnReturn", "autoCommitByDefault", "readOnlyByDefault", "useFairQueue", "logAbandonedConnections",
        "logValidationErrors", "checkConnectionWhileIdle", "checkConnectionOnBorrow", "checkConnectionOnConnect",
        "checkConnectionOnReturn", "autoCommentsEnabled", "removeAbandoned", "ignoreExceptionOnPreLoad");

    private static final List<String> ISOLATIONS = List.of("NONE", "DEFAULT", "READ_UNCOMMITTED", "READ_COMMITTED",
        "REPEATABLE_READ", "SERIALIZABLE");

    /** Floors and defaults of both pools, in milliseconds: values are drawn just below, at and above them. */
    private static final long[] ANCHORS = {1, 50, 250, 1_000, 2_000, 5_000, 10_000, 30_000, 60_000, 120_000,
        600_000, 1_800_000};

    private final Random random;
    private final String database;

    BlockGenerator(long seed, String database) {
        this.random = new Random(seed);
        this.database = database;
    }

    GeneratedBlock next(int index) {
        Map<String, String> scalars = new LinkedHashMap<>();
        Map<String, Map<String, String>> maps = new LinkedHashMap<>();
        scalars.put("url", "\"jdbc:h2:mem:" + database + "_" + index + "\"");
        if (half()) {
            scalars.put("driverClass", "org.h2.Driver");
        }
        if (half()) {
            String user = pick("sa", "app", "reader");
            scalars.put("user", user);
            scalars.put("password", quoted(pick("", "s3cret", user + "-pw")));
        }
        if (chance(0.3)) {
            Map<String, String> properties = new LinkedHashMap<>();
            if (half()) {
                properties.put("MODE", "REGULAR");
            }
            if (half()) {
                properties.put("LOCK_TIMEOUT", String.valueOf(1_000 + random.nextInt(9_000)));
            }
            maps.put("properties", properties);
        }
        drawSizes(scalars);
        for (String field : DURATION_FIELDS) {
            if (half()) {
                scalars.put(field, duration());
            }
        }
        for (String field : BOOLEAN_FIELDS) {
            if (chance(0.4)) {
                scalars.put(field, String.valueOf(random.nextBoolean()));
            }
        }
        if (chance(0.4)) {
            int percentage = chance(0.05) ? pick(-1, 101, 150) : random.nextInt(101);
            scalars.put("abandonWhenPercentageFull", String.valueOf(percentage));
        }
        if (chance(0.4)) {
            scalars.put("defaultTransactionIsolation", ISOLATIONS.get(random.nextInt(ISOLATIONS.size())));
        }
        if (chance(0.3)) {
            scalars.put("defaultCatalog", quoted(pick("CATALOG_A", database.toUpperCase() + "_" + index)));
        }
        if (half()) {
            scalars.put("validationQuery", quoted(pick("/* Health Check */ SELECT 1", "SELECT 1", "VALUES 1")));
        }
        if (chance(0.3)) {
            scalars.put("initializationQuery", quoted(pick("SELECT 1", "SET SCHEMA PUBLIC")));
        }
        if (chance(0.3)) {
            scalars.put("validatorClassName", "org.example.PingValidator");
        }
        if (chance(0.3)) {
            scalars.put("jdbcInterceptors", quoted(pick("ConnectionState;StatementFinalizer", "ConnectionState")));
        }
        return new GeneratedBlock(index, scalars, maps);
    }

    /**
     * Mostly sizes that are consistent among themselves (so that the other fields decide), sometimes any three
     * numbers, and each stated or not on its own.
     */
    private void drawSizes(Map<String, String> scalars) {
        int max;
        int min;
        int initial;
        if (chance(0.7)) {
            max = 1 + smallOrLarge(199);
            min = random.nextInt(max + 1);
            initial = min + random.nextInt(max - min + 1);
        } else {
            max = smallOrLarge(200);
            min = smallOrLarge(200);
            initial = smallOrLarge(200);
        }
        int[] values = {initial, min, max};
        for (int i = 0; i < values.length; i++) {
            if (half()) {
                scalars.put(SIZE_FIELDS.get(i), String.valueOf(chance(0.03) ? -1 - random.nextInt(3) : values[i]));
            }
        }
    }

    private int smallOrLarge(int bound) {
        return chance(0.75) ? random.nextInt(Math.min(bound, 16) + 1) : random.nextInt(bound + 1);
    }

    /** A duration as users write them, in any of Dropwizard's units. */
    private String duration() {
        double dice = random.nextDouble();
        if (dice < 0.03) {
            return pick("0ms", "0 seconds", "0s");
        }
        if (dice < 0.05) {
            return (1 + random.nextInt(999)) + pick(" microseconds", "us", "ns");
        }
        if (dice < 0.07) {
            return (1 + random.nextInt(400)) + pick(" days", "d");
        }
        long millis;
        if (dice < 0.85) {
            long anchor = ANCHORS[random.nextInt(ANCHORS.length)];
            long delta = switch (random.nextInt(4)) {
                case 0 -> -1;
                case 1 -> 0;
                case 2 -> 1;
                default -> (long) (anchor * (random.nextDouble() - 0.5));
            };
            millis = Math.max(1, anchor + delta);
        } else {
            millis = 1 + (long) (random.nextDouble() * 3 * 3_600_000L);
        }
        return render(millis);
    }

    private String render(long millis) {
        if (millis % 3_600_000 == 0) {
            return (millis / 3_600_000) + pick(" hours", "h");
        }
        if (millis % 60_000 == 0) {
            return (millis / 60_000) + pick(" minutes", "m", " min");
        }
        if (millis % 1_000 == 0) {
            return (millis / 1_000) + pick(" seconds", "s", " second");
        }
        return millis + pick("ms", " milliseconds");
    }

    private static String quoted(String text) {
        return "\"" + text + "\"";
    }

    private boolean half() {
        return random.nextBoolean();
    }

    private boolean chance(double probability) {
        return random.nextDouble() < probability;
    }

    @SafeVarargs
    private <T> T pick(T... values) {
        return values[random.nextInt(values.length)];
    }
}
