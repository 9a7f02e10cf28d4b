package io.github.dropwizardhikari.it.faults;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.jdbi3.JdbiHealthCheck;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.pools.BundleInitialization;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A failover on a real PostgreSQL 15 primary and its streaming standby ({@link PrimaryStandbyPair}), under two
 * writers and two readers on one pool of 4, for each pool configuration, with no {@code networkTimeout}: the crash
 * (the primary stopped at once, the standby promoted a second later, a multi-host URL with
 * {@code targetServerType=primary}); the cloud-DNS shape (a TCP proxy sends new connections to the promoted standby
 * while the old primary stays up, read-only, its sessions kept); the silent shape (the same, but what was open to the
 * old primary says nothing more). Short runs: 1.5 s before, 4 s after (the silent shape 8 s).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PrimaryFailoverPairIT {
    enum Shape {
        CRASH("crash: `pg_ctl stop -m immediate`, promote 1 s later, multi-host URL with `targetServerType=primary`"),
        CLOUD_DNS("cloud DNS: the address now leads to the promoted standby; the old primary stays up, read-only, "
            + "its sessions kept"),
        SILENT("silent: as cloud DNS, but the old primary's sessions go silent, nothing closed");

        final String description;

        Shape(String description) {
            this.description = description;
        }
    }

    private record Request(boolean write, long startedNanos, long endedNanos, boolean succeeded, int serverPort) {
    }

    /** One answer of the pool's health check: when it was asked and answered, and what it said. */
    private record Health(long askedNanos, long answeredNanos, boolean healthy, String message) {
    }

    private static final int LOOPS_EACH = 2;
    private static final long BEFORE_MILLIS = 1_500;
    private static final long AFTER_MILLIS = 4_000;
    private static final long SILENT_AFTER_MILLIS = 8_000;
    // longer than a borrow may take (its 2 s wait, then up to 2 s testing an idle connection): a request waiting
    // that long is stuck
    private static final long STUCK_MILLIS = 5_000;
    private static final long HEALTH_EVERY_MILLIS = 250;

    private final FaultReport report = FaultReport.shared();

    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes failovers on a primary/standby pair: WARN and ERROR lines in this log "
            + "are expected.");
    }

    @AfterAll
    void writeReport() throws Exception {
        report.write("a PostgreSQL 15 primary/standby pair made by the test");
    }

    static Stream<Arguments> cells() {
        List<Arguments> cells = new ArrayList<>();
        for (Shape shape : Shape.values()) {
            for (PoolConfiguration pool : PoolConfiguration.values()) {
                cells.add(Arguments.of(shape, pool));
            }
        }
        return cells.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cells")
    void failover(Shape shape, PoolConfiguration pool) throws Exception {
        try (PrimaryStandbyPair pair = PrimaryStandbyPair.start(); TcpProxy proxy =
            new TcpProxy(pair.primary().hostAndPort())) {
            execute(pair.primary(), "CREATE TABLE writes (id SERIAL PRIMARY KEY)");
            TestDatabase target = shape == Shape.CRASH ? pair.multiHost()
                : pair.primary().through(proxy.hostAndPort());
            String name = "it-pair-" + pool.label();
            MetricRegistry metrics = new MetricRegistry();
            HealthCheckRegistry healthChecks = new HealthCheckRegistry();
            ExecutorService checking = Executors.newCachedThreadPool(task -> {
                Thread thread = new Thread(task, "it-pair-health");
                thread.setDaemon(true);
                return thread;
            });
            ManagedDataSource dataSource;
            if (pool.isHikari()) {
                HikariDataSourceFactory factory = pool.hikariFactory(target, 4, Duration.seconds(2));
                // what HikariBundle.run does for an application: the pool's ConnectivityCheck, 1 s bound
                BundleInitialization.bind(factory, metrics, healthChecks);
                factory.setHealthCheckProperties(Map.of("connectivityCheckTimeoutMs", "1000"));
                dataSource = factory.build(metrics, name);
            } else {
                dataSource = pool.build(target, name, 4, Duration.seconds(2), metrics);
                // Tomcat's pool has no health check of its own: an application's /healthcheck runs Dropwizard's
                // Jdbi check on it (its default validation query, 5 s bound when validationQueryTimeout is unset)
                healthChecks.register(name + ".jdbi", new JdbiHealthCheck(checking, Duration.seconds(5),
                    Jdbi.create(dataSource), Optional.of("/* Health Check */ SELECT 1")));
            }
            String check = pool.isHikari() ? name + ".pool.ConnectivityCheck" : name + ".jdbi";
            dataSource.start();
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicInteger inFlight = new AtomicInteger();
            ConcurrentLinkedQueue<Request> requests = new ConcurrentLinkedQueue<>();
            ConcurrentLinkedQueue<Health> health = new ConcurrentLinkedQueue<>();
            ExecutorService loops = Executors.newFixedThreadPool(2 * LOOPS_EACH + 1);
            long failedAt;
            int inFlightAtFailure;
            AtomicLong endOfRun = new AtomicLong(Long.MAX_VALUE);
            try {
                for (int i = 0; i < 2 * LOOPS_EACH; i++) {
                    boolean write = i % 2 == 0;
                    loops.execute(() -> {
                        while (running.get()) {
                            inFlight.incrementAndGet();
                            requests.add(request(dataSource, write));
                            inFlight.decrementAndGet();
                        }
                    });
                }
                loops.execute(() -> {
                    while (running.get()) {
                        long asked = System.nanoTime();
                        HealthCheck.Result result = healthChecks.runHealthCheck(check);
                        health.add(new Health(asked, System.nanoTime(), result.isHealthy(),
                            String.valueOf(result.getMessage())));
                        pause(HEALTH_EVERY_MILLIS);
                    }
                });
                TimeUnit.MILLISECONDS.sleep(BEFORE_MILLIS);
                failedAt = System.nanoTime();
                inFlightAtFailure = inFlight.get();
                switch (shape) {
                    case CRASH -> {
                        pair.crashPrimary();
                        TimeUnit.SECONDS.sleep(1);
                        pair.promoteStandby();
                    }
                    case CLOUD_DNS -> {
                        pair.promoteStandby();
                        execute(pair.primary(), "ALTER SYSTEM SET default_transaction_read_only = on",
                            "SELECT pg_reload_conf()");
                        proxy.retarget(pair.standby().hostAndPort());
                    }
                    case SILENT -> {
                        pair.promoteStandby();
                        proxy.silence();
                        proxy.retarget(pair.standby().hostAndPort());
                        proxy.answerNewOnly();
                    }
                }
                TimeUnit.MILLISECONDS.sleep(shape == Shape.SILENT ? SILENT_AFTER_MILLIS : AFTER_MILLIS);
            } finally {
                endOfRun.set(System.nanoTime());
                running.set(false);
                // requests still waiting on a silent socket are let go, so the loops end
                proxy.cutAll();
                loops.shutdown();
                loops.awaitTermination(30, TimeUnit.SECONDS);
                dataSource.stop();
                checking.shutdownNow();
            }
            long promoted = failedAt;
            // a request the test cut at the end counts only if it had waited longer than a borrow may: the rest were
            // ordinary requests in flight then
            long end = endOfRun.get();
            long stuckBefore = end - TimeUnit.MILLISECONDS.toNanos(STUCK_MILLIS);
            List<Request> after = requests.stream().filter(request -> request.endedNanos() > promoted
                && (request.endedNanos() < end || request.startedNanos() < stuckBefore)).toList();
            long failed = after.stream().filter(request -> !request.succeeded()).count();
            long firstEvidence = after.stream().filter(request -> !request.succeeded())
                .mapToLong(Request::endedNanos).min().orElse(0);
            long firstWrite = after.stream().filter(request -> request.write() && request.succeeded()
                && request.serverPort() != pair.primaryPort() && request.startedNanos() > promoted)
                .mapToLong(Request::endedNanos).min().orElse(0);
            long staleReads = after.stream().filter(request -> !request.write() && request.succeeded()
                && request.serverPort() == pair.primaryPort() && firstEvidence != 0
                && request.startedNanos() > firstEvidence).count();
            long stillWaiting = after.stream().filter(request -> request.endedNanos() > end).count();
            String figure = failed + " failed (" + inFlightAtFailure + " in flight"
                + (stillWaiting == 0 ? "" : "; " + stillWaiting + " of the failed still waiting when the run ended, "
                + "let go then")
                + "), first write on the new primary "
                + (firstWrite == 0 ? "none" : TimeUnit.NANOSECONDS.toMillis(firstWrite - failedAt) + " ms") + " after "
                + "the failure began; reads from the old primary after the first failure: " + staleReads
                + "; " + healthFigure(pool, answered(health, failedAt, end), failedAt);
            report.record("Primary/standby pair, " + shape.description + "; 2 writers and 2 readers on a pool of 4, "
                + "`maxWaitForConnection: 2s`, no `networkTimeout`: requests failed after the failure began (in "
                + "flight then), first write on the new primary, reads served by the old primary after the first "
                + "failure, the health check an application's `/healthcheck` runs on the pool (the pool's "
                + "`ConnectivityCheck`; on Tomcat's pool Dropwizard's Jdbi check), asked every "
                + HEALTH_EVERY_MILLIS + " ms", pool, figure);
            if (pool == PoolConfiguration.HIKARI_FAULT_HANDLING) {
                assertThat(firstWrite).as("a write on the new primary").isNotZero();
                assertThat(stillWaiting).as("requests still waiting at the end").isZero();
                if (shape == Shape.CRASH) {
                    // at most one failure per connection, and the requests in flight at the crash
                    assertThat(failed).isLessThanOrEqualTo(4 + inFlightAtFailure);
                }
                assertThat(staleReads).as("reads by the old primary after the first evidence").isZero();
                // it serves again, and its health check says so by the end of the run
                assertThat(answered(health, promoted, end).stream().reduce((first, second) -> second))
                    .as("the pool's last health answer").hasValueSatisfying(answer ->
                        assertThat(answer.healthy()).as(answer.message()).isTrue());
            }
        }
    }

    /**
     * @return what the health check said from the failure on: how many of its answers were unhealthy, the first
     *     unhealthy one (when, what), and the last answer of the run
     */
    private static String healthFigure(PoolConfiguration pool, List<Health> after, long failedAt) {
        String name = pool.isHikari() ? "`ConnectivityCheck`" : "Jdbi check";
        if (after.isEmpty()) {
            return name + " never answered after the failure began";
        }
        List<Health> unhealthy = after.stream().filter(answer -> !answer.healthy()).toList();
        Health last = after.get(after.size() - 1);
        return name + " unhealthy in " + unhealthy.size() + " of " + after.size() + " answers" + (unhealthy.isEmpty()
            ? "" : " (first " + TimeUnit.NANOSECONDS.toMillis(unhealthy.get(0).askedNanos() - failedAt) + " ms after "
            + "the failure: " + firstLine(unhealthy.get(0).message()) + ")") + ", last " + (last.healthy() ? "healthy"
            : "unhealthy");
    }

    /** @return the answers asked from the failure on and given before the run ended (and the test cut everything) */
    private static List<Health> answered(ConcurrentLinkedQueue<Health> health, long failedAt, long end) {
        return health.stream().filter(answer -> answer.askedNanos() >= failedAt && answer.answeredNanos() <= end)
            .toList();
    }

    private static String firstLine(String message) {
        String line = message.lines().findFirst().orElse("");
        return line.length() <= 100 ? line : line.substring(0, 100) + "...";
    }

    private static void pause(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Request request(ManagedDataSource dataSource, boolean write) {
        long started = System.nanoTime();
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            int port;
            try (ResultSet row = statement.executeQuery("SELECT inet_server_port()")) {
                row.next();
                port = row.getInt(1);
            }
            if (write) {
                statement.executeUpdate("INSERT INTO writes DEFAULT VALUES");
            }
            return new Request(write, started, System.nanoTime(), true, port);
        } catch (SQLException e) {
            return new Request(write, started, System.nanoTime(), false, 0);
        }
    }

    private static void execute(TestDatabase database, String... commands) throws SQLException {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement()) {
            for (String command : commands) {
                statement.execute(command);
            }
        }
    }
}
