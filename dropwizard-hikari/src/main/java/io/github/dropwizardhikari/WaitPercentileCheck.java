package io.github.dropwizardhikari;

import com.codahale.metrics.Timer;
import com.codahale.metrics.health.HealthCheck;

import java.util.concurrent.TimeUnit;

/**
 * HikariCP's {@code Connection99Percent} check, on the pool's {@code Wait} timer: unhealthy while the 99th
 * percentile exceeds {@code expected99thPercentileMs}.
 */
final class WaitPercentileCheck extends HealthCheck {
    /** The health check property that turns the check on, as in HikariCP. */
    static final String PROPERTY = "expected99thPercentileMs";
    /** The check's name after the pool's, as HikariCP names it. */
    static final String NAME = ".pool.Connection99Percent";

    private final Timer wait;
    private final long expectedMillis;

    WaitPercentileCheck(Timer wait, long expectedMillis) {
        this.wait = wait;
        this.expectedMillis = expectedMillis;
    }

    @Override
    protected Result check() {
        long percentile = TimeUnit.NANOSECONDS.toMillis(Math.round(wait.getSnapshot().get99thPercentile()));
        return percentile <= expectedMillis ? Result.healthy()
            : Result.unhealthy("99th percentile connection wait time of %dms exceeds the threshold %dms", percentile,
                expectedMillis);
    }
}
