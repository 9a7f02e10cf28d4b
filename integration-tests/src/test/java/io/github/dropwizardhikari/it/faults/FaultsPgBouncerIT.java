package io.github.dropwizardhikari.it.faults;

import com.codahale.metrics.Histogram;
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
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, PgBouncer and PostgreSQL restarts under load."
            + " WARN and ERROR lines in this log are expected.");
    }

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
        report.write(stack.versions() + " in transaction mode, each pool of " + POOL_SIZE + " connections with "
            + "`prepareThreshold=0`");
    }

    /** One client sending requests back to back on its own thread, counting what happens. */
    private static final class RequestLoop implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicInteger failures = new AtomicInteger();
        // failures that came back well inside the pool's timeout: a dead connection handed out, not a wait
        private final AtomicInteger fastFailures = new AtomicInteger();
        private final AtomicInteger consecutiveSuccesses = new AtomicInteger();
        private final AtomicLong slowestMillis = new AtomicLong();
        private final AtomicLong lastFailureNanos = new AtomicLong();
        private final Thread thread;

        RequestLoop(ManagedDataSource dataSource) {
            thread = new Thread(() -> {
                while (running.get()) {
                    long started = System.nanoTime();
                    boolean answered = Requests.selectOne(dataSource);
                    long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                    slowestMillis.accumulateAndGet(took, Math::max);
                    if (answered) {
                        consecutiveSuccesses.incrementAndGet();
                    } else {
                        failures.incrementAndGet();
                        if (took < TIMEOUT.toMilliseconds() / 2) {
                            fastFailures.incrementAndGet();
                        }
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
            Requests.openAll(dataSource, POOL_SIZE);
            try (RequestLoop client = new RequestLoop(dataSource)) {
                long restarted = System.nanoTime();
                stack.restartPgBouncer();
                long down = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarted);
                client.consecutiveSuccesses.set(0);
                long lastFailureAfter = client.awaitRecovery(restarted);
                report.record("PgBouncer restarted (every client connection cut; back after the time shown): failed "
                    + "requests (of which failed at once), last failure after the restart began, slowest request",
                    pool, client.failures.get() + " failed (" + client.fastFailures.get() + " at once), last "
                    + "failure at " + lastFailureAfter + " ms (PgBouncer back at " + down + " ms), slowest "
                    + client.slowestMillis.get() + " ms");
                if (pool.isHikari()) {
                    // each cut connection fails one request at most, then HikariCP evicts it on its SQLState; any
                    // other failure is a borrower that waited its timeout while PgBouncer was away
                    assertThat(client.fastFailures.get()).as("requests failed at once").isLessThanOrEqualTo(POOL_SIZE);
                    assertThat(client.slowestMillis.get()).as("slowest request %d ms (timeout %d ms)",
                        client.slowestMillis.get(), TIMEOUT.toMilliseconds())
                        .isLessThan(TIMEOUT.toMilliseconds() + 2_000);
                }
            }
            assertThat(Requests.selectOne(dataSource)).as("serves after PgBouncer came back").isTrue();
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
            Requests.openAll(dataSource, POOL_SIZE);
            long opened = connectionsOpened(name);
            try (RequestLoop client = new RequestLoop(dataSource)) {
                long restarted = System.nanoTime();
                stack.restartPostgres();
                long down = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarted);
                client.consecutiveSuccesses.set(0);
                long lastFailureAfter = client.awaitRecovery(restarted);
                long reopened = connectionsOpened(name) - opened;
                report.record("PostgreSQL restarted behind a running PgBouncer (fast shutdown; back after the time "
                    + "shown): failed requests, last failure after the restart began, slowest request; connections "
                    + "the pool replaced", pool, client.failures.get() + " failed, last failure at " + lastFailureAfter
                    + " ms (PostgreSQL back at " + down + " ms), slowest " + client.slowestMillis.get() + " ms"
                    + (pool.isHikari() ? "; " + reopened + " of " + POOL_SIZE + " replaced" : ""));
                if (pool.isHikari()) {
                    // requests fail while the server is away (PgBouncer answers them with its login error), as many
                    // as the client sends, so only their duration is bounded: none hangs past PgBouncer's
                    // query_wait_timeout (10 s) plus the pool's own timeout
                    assertThat(client.slowestMillis.get()).as("slowest request %d ms", client.slowestMillis.get())
                        .isLessThan(12_000);
                }
            }
            assertThat(Requests.selectOne(dataSource)).as("serves after PostgreSQL came back").isTrue();
        } finally {
            dataSource.stop();
        }
    }

    /** Connections HikariCP has opened for the pool so far, from its own metric; 0 for the Tomcat pools. */
    private long connectionsOpened(String pool) {
        Histogram creations = metrics.getHistograms().get(pool + ".pool.ConnectionCreation");
        return creations == null ? 0 : creations.getCount();
    }
}
