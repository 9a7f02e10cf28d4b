package io.github.dropwizardhikari.config;

import io.dropwizard.util.Duration;

/**
 * The lowest values HikariCP 7.1 honours, in milliseconds: below them {@code HikariConfig.validate()} replaces a
 * value with a default or turns the feature off.
 */
public final class HikariFloors {
    /** {@code connectionTimeout} and {@code validationTimeout} (HikariCP's soft timeout floor). */
    public static final long TIMEOUT_MS = 250;
    /** {@code idleTimeout}, unless 0. */
    public static final long IDLE_TIMEOUT_MS = 10_000;
    /** How far {@code idleTimeout} must stay below {@code maxLifetime}. */
    public static final long IDLE_BELOW_LIFETIME_MS = 1_000;
    /** {@code maxLifetime}, unless 0. */
    public static final long MAX_LIFETIME_MS = 30_000;
    /** {@code keepaliveTime}, unless 0. */
    public static final long KEEPALIVE_MS = 30_000;
    /** {@code leakDetectionThreshold}, unless 0. */
    public static final long LEAK_DETECTION_MS = 2_000;

    private HikariFloors() {
    }

    /** @return {@code millis} as a duration in the largest unit that holds it exactly, for messages */
    public static Duration readable(long millis) {
        if (millis != 0 && millis % 3_600_000 == 0) {
            return Duration.hours(millis / 3_600_000);
        }
        if (millis != 0 && millis % 60_000 == 0) {
            return Duration.minutes(millis / 60_000);
        }
        if (millis % 1_000 == 0) {
            return Duration.seconds(millis / 1_000);
        }
        return Duration.milliseconds(millis);
    }
}
