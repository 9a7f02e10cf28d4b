package io.github.dropwizardhikari.pool;

/**
 * Options for tests that build a {@link ManagedHikariDataSource} by hand: no sizing log, no Tomcat-named gauges,
 * HikariCP's own hand-off unless fair borrowing is asked for.
 */
public final class TestPoolOptions {
    private TestPoolOptions() {
    }

    /** @return HikariCP's own hand-off and the default fault handling */
    public static PoolOptions unfair() {
        return withFaults(FaultHandling.defaults());
    }

    /** @return fair borrowing and the default fault handling */
    public static PoolOptions fair() {
        return new PoolOptions(null, false, true, FaultHandling.defaults());
    }

    /** @return HikariCP's own hand-off and the given fault handling */
    public static PoolOptions withFaults(FaultHandling faults) {
        return new PoolOptions(null, false, false, faults);
    }
}
