package io.github.dropwizardhikari;

import com.codahale.metrics.MetricRegistry;
import io.github.dropwizardhikari.pool.ManagedHikariDataSource;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;

import static org.assertj.core.api.Assertions.assertThat;

/** The pools an application lists and counts are those still reachable and not stopped. */
class ApplicationPoolsTest {
    private final MetricRegistry metrics = new MetricRegistry();
    private final ApplicationPools application = ApplicationPools.of(metrics);

    @Test
    void aPoolTheCollectorClearedIsNeitherListedNorCounted() {
        ManagedHikariDataSource kept = pool(metrics, "kept");
        WeakReference<ManagedHikariDataSource> cleared = new WeakReference<>(pool(new MetricRegistry(), "gone"));
        cleared.clear();

        application.remember(cleared);

        assertThat(application.pools()).containsExactly(kept);
        assertThat(application.getValue()).isEqualTo(1);
    }

    @Test
    void aPoolTheCollectorClearsWhileThePoolsAreReadIsNeitherListedNorCounted() {
        ManagedHikariDataSource kept = pool(metrics, "kept");
        ManagedHikariDataSource gone = pool(new MetricRegistry(), "gone");

        application.remember(new ClearedAfterOneRead(gone));
        assertThat(application.pools()).containsExactly(kept);
        application.remember(new ClearedAfterOneRead(gone));
        assertThat(application.getValue()).isEqualTo(1);
    }

    private static ManagedHikariDataSource pool(MetricRegistry metrics, String name) {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:" + name);
        // built, not started: no connection is opened
        return (ManagedHikariDataSource) factory.build(metrics, name);
    }

    /** A reference the collector clears between the check for stopped pools and the listing. */
    private static final class ClearedAfterOneRead extends WeakReference<ManagedHikariDataSource> {
        private int reads;

        ClearedAfterOneRead(ManagedHikariDataSource pool) {
            super(pool);
        }

        @Override
        public ManagedHikariDataSource get() {
            return reads++ == 0 ? super.get() : null;
        }
    }
}
