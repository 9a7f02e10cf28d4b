package io.github.dropwizardhikari.it.faults;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.pgbouncer.PgBouncerStack;
import io.github.dropwizardhikari.it.pgbouncer.PgBouncerStacks;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each pool in front of PgBouncer (transaction mode) while PgBouncer restarts, and while the PostgreSQL server
 * behind it restarts. A client thread sends requests the whole time; the figures go to
 * {@code docs/faults-pgbouncer.md}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FaultsPgBouncerIT {
    private static final Duration TIMEOUT = Duration.seconds(1);
    private static final int POOL_SIZE = 4;
    private static final long RECOVERY_LIMIT_MILLIS = 30_000;

    private final FaultReport report = new FaultReport("faults-pgbouncer.md",
        "Faults through PgBouncer: what each pool does when the pooler or the server behind it restarts",
        "FaultsPgBouncerIT");
    private final MetricRegistry metrics = new MetricRegistry();
    private PgBouncerStack stack;
    private TestDatabase database;

    @BeforeAll
    void prepare() {
        stack = PgBouncerStacks.get();
        database = stack.database("it_faults");
    }

    @AfterAll
    void writeReport() throws Exception {
        report.write(database.kind().displayName() + " behind PgBouncer 1.18 in transaction mode ("
            + database.source() + "), each pool of " + POOL_SIZE + " connections with `prepareThreshold=0`");
    }

    private static boolean request(ManagedDataSource dataSource) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT 1")) {
            return result.next();
        } catch (SQLException e) {
            return false;
        }
    }

    private static void holdAllAtOnce(ManagedDataSource dataSource) throws SQLException {
        List<Connection> held = new ArrayList<>();
        try {
            for (int i = 0; i < POOL_SIZE; i++) {
                held.add(dataSource.getConnection());
            }
        } finally {
            for (Connection connection : held) {
                connection.close();
            }
        }
    }

    /** One client sending requests back to back on its own thread, counting what happens. */
    private static final class RequestLoop implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicInteger failures = new AtomicInteger();
        private final AtomicInteger consecutiveSuccesses = new AtomicInteger();
        private final AtomicLong slowestMillis = new AtomicLong();
        private final AtomicLong lastFailureNanos = new AtomicLong();
        private final Thread thread;

        RequestLoop(ManagedDataSource dataSource) {
            thread = new Thread(() -> {
                while (running.get()) {
                    long started = System.nanoTime();
                    boolean answered = request(dataSource);
                    slowestMillis.accumulateAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                        Math::max);
                    if (answered) {
                        consecutiveSuccesses.incrementAndGet();
                    } else {
                        failures.incrementAndGet();
                        consecutiveSuccesses.set(0);
                        lastFailureNanos.set(System.nanoTime());
                    }
                }
            }, "fault-client");
            thread.start();
        }

        /**
         * Waits until ten requests in a row succeed; returns when the last failure happened, in milliseconds after
         * {@code since} (0 for none since then).
         */
        long awaitRecovery(long since) throws InterruptedException {
            long deadline = since + TimeUnit.MILLISECONDS.toNanos(RECOVERY_LIMIT_MILLIS);
            while (consecutiveSuccesses.get() < 10) {
                assertThat(System.nanoTime()).as("recovered within %d ms", RECOVERY_LIMIT_MILLIS).isLessThan(deadline);
                TimeUnit.MILLISECONDS.sleep(10);
            }
            long lastFailure = lastFailureNanos.get();
            return lastFailure < since ? 0 : TimeUnit.NANOSECONDS.toMillis(lastFailure - since);
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    @ParameterizedTest
    @EnumSource(PoolConfiguration.class)
    void pgBouncerRestarted(PoolConfiguration pool) throws Exception {
        String name = "bouncer-restart-" + pool.label();
        ManagedDataSource dataSource = pool.build(database, name, POOL_SIZE, TIMEOUT, metrics);
        try {
            holdAllAtOnce(dataSource);
            try (RequestLoop client = new RequestLoop(dataSource)) {
                long restarted = System.nanoTime();
                stack.restartPgBouncer();
                long down = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarted);
                client.consecutiveSuccesses.set(0);
                long lastFailureAfter = client.awaitRecovery(restarted);
                report.record("PgBouncer restarted (every client connection cut; back after the time shown): failed "
                    + "requests, last failure after the restart began, slowest request", pool, client.failures.get()
                    + " failed, last failure at " + lastFailureAfter + " ms (PgBouncer back at " + down
                    + " ms), slowest " + client.slowestMillis.get() + " ms");
                if (pool == PoolConfiguration.HIKARI) {
                    // each cut connection fails one request at most, then HikariCP evicts it on its SQLState; the
                    // rest fail while PgBouncer is away and HikariCP cannot open new ones
                    assertThat(client.slowestMillis.get()).as("slowest request").isLessThan(RECOVERY_LIMIT_MILLIS);
                }
            }
            assertThat(request(dataSource)).as("serves after PgBouncer came back").isTrue();
        } finally {
            dataSource.stop();
        }
    }

    @ParameterizedTest
    @EnumSource(PoolConfiguration.class)
    void postgresRestartedBehindPgBouncer(PoolConfiguration pool) throws Exception {
        String name = "server-restart-" + pool.label();
        ManagedDataSource dataSource = pool.build(database, name, POOL_SIZE, TIMEOUT, metrics);
        try {
            holdAllAtOnce(dataSource);
            int before = serverBackends();
            try (RequestLoop client = new RequestLoop(dataSource)) {
                long restarted = System.nanoTime();
                stack.restartPostgres();
                long down = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarted);
                client.consecutiveSuccesses.set(0);
                long lastFailureAfter = client.awaitRecovery(restarted);
                report.record("PostgreSQL restarted behind a running PgBouncer (fast shutdown; back after the time "
                    + "shown): failed requests, last failure after the restart began, slowest request", pool,
                    client.failures.get() + " failed, last failure at " + lastFailureAfter + " ms (PostgreSQL back at "
                        + down + " ms), slowest " + client.slowestMillis.get() + " ms; " + before
                        + " server connections before");
            }
            assertThat(request(dataSource)).as("serves after PostgreSQL came back").isTrue();
        } finally {
            dataSource.stop();
        }
    }

    private int serverBackends() throws SQLException {
        try (Connection admin = stack.connectDirectly("postgres"); Statement statement = admin.createStatement();
             ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = '"
                 + database.databaseName() + "'")) {
            result.next();
            return result.getInt(1);
        }
    }
}
