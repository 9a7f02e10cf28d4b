package io.github.dropwizardhikari.fairborrowing;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.codahale.metrics.health.HealthCheck;
import com.codahale.metrics.health.HealthCheckRegistry;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static io.github.dropwizardhikari.fairborrowing.FairPools.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The figures users alert on stay true with the gate: borrowers queued at it are pending, their time there is part
 * of {@code Wait} (and so of the {@code Connection99Percent} check), each refusal is a {@code ConnectionTimeoutRate}
 * mark, and a stop removes everything so the name can be built again.
 */
class FiguresTest {
    private final FairPools pools = new FairPools();
    private final MetricRegistry metrics = pools.metrics;
    private final HealthCheckRegistry healthChecks = pools.healthChecks;

    @AfterEach
    void stopAll() {
        pools.close();
    }

    private ManagedHikariDataSource build(String name, int size, Duration timeout, Map<String, String> checks) {
        HikariDataSourceFactory factory = pools.factory(name, size, timeout.toMilliseconds());
        factory.setHealthCheckProperties(checks);
        return pools.buildStopped(name, factory);
    }

    /**
     * Sixteen borrowers queued at the gate behind four held connections are pending, and the {@code Wait} timer's
     * longest wait is the whole wait, gate and HikariCP together.
     */
    @Test
    void borrowersQueuedAtTheGateAreWaitingInEveryFigure() throws Exception {
        ManagedHikariDataSource dataSource = build("queued", 4, Duration.seconds(20),
            Map.of("expected99thPercentileMs", "100"));
        dataSource.start();
        Gauge<?> pending = metrics.getGauges().get("queued.pool.PendingConnections");

        List<Connection> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            held.add(dataSource.getConnection());
        }
        ExecutorService borrowers = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> borrows = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                borrows.add(borrowers.submit(() -> {
                    try (Connection connection = dataSource.getConnection()) {
                        return connection.isValid(1);
                    }
                }));
            }
            await("16 borrowers pending", () -> ((Number) pending.getValue()).intValue() == 16);
            assertThat(pending.getValue()).as("PendingConnections").isEqualTo(16);
            assertThat(metrics.getGauges().get("queued.pool.GateWaiting").getValue()).isEqualTo(16);
            TimeUnit.MILLISECONDS.sleep(300);
            for (Connection connection : held) {
                connection.close();
            }
            for (Future<?> borrow : borrows) {
                borrow.get(20, TimeUnit.SECONDS);
            }
        } finally {
            borrowers.shutdownNow();
        }
        Timer wait = metrics.getTimers().get("queued.pool.Wait");
        assertThat(wait.getCount()).isEqualTo(20);
        assertThat(TimeUnit.NANOSECONDS.toMillis(wait.getSnapshot().getMax())).as("the longest whole wait, in ms")
            .isGreaterThanOrEqualTo(300);
        assertThat(pending.getValue()).isEqualTo(0);
        // sixteen of twenty borrows waited 300 ms or more: the 99th percentile check reads the whole wait
        HealthCheck.Result percentile = healthChecks.runHealthCheck("queued.pool.Connection99Percent");
        assertThat(percentile.isHealthy()).isFalse();
        assertThat(percentile.getMessage()).startsWith("99th percentile connection wait time of ")
            .endsWith("exceeds the threshold 100ms");
    }

    @Test
    void aRefusalAtTheGateIsHikarisTimeoutCountedInTheTimeoutRate() throws Exception {
        ManagedHikariDataSource dataSource = build("refused", 1, Duration.milliseconds(500), Map.of());
        try (Connection held = dataSource.getConnection()) {
            assertThatThrownBy(dataSource::getConnection)
                .isExactlyInstanceOf(SQLTransientConnectionException.class)
                .hasMessageMatching("refused - Connection is not available, request timed out after \\d+ms "
                    + "\\(total=1, active=1, idle=0, waiting=\\d+\\)");
            assertThat(held.isValid(1)).isTrue();
        }
        assertThat(metrics.meter("refused.pool.ConnectionTimeoutRate").getCount()).isEqualTo(1);
        assertThat(metrics.timer("refused.pool.Wait").getCount()).isEqualTo(1);
        assertThat(healthChecks.runHealthCheck("refused.pool.ConnectivityCheck").isHealthy()).isTrue();
    }

    /**
     * HikariCP's {@code ConnectivityCheck} borrows from the pool without passing the gate; a hundred checks while
     * one connection of two is out, and one that times out while both are, take no place for good and give none
     * too many.
     */
    @Test
    void hikarisConnectivityCheckNeitherLosesNorAddsAPlace() throws Exception {
        ManagedHikariDataSource dataSource = build("checked", 2, Duration.seconds(1), Map.of());
        dataSource.start();
        BorrowGate gate = pools.gate("checked");
        try (Connection held = dataSource.getConnection()) {
            for (int i = 0; i < 100; i++) {
                assertThat(healthChecks.runHealthCheck("checked.pool.ConnectivityCheck").isHealthy()).isTrue();
                assertThat(gate.freePlaces()).isEqualTo(1);
            }
            assertThat(held.isValid(1)).isTrue();
            try (Connection other = dataSource.getConnection()) {
                HealthCheck.Result timedOut = healthChecks.runHealthCheck("checked.pool.ConnectivityCheck");
                assertThat(timedOut.isHealthy()).isFalse();
                assertThat(other.isValid(1)).isTrue();
            }
        }
        FairPools.assertServesExactly(dataSource, gate, 2);
    }

    @Test
    void stopRemovesMetricsAndHealthChecksSoTheNameCanBeBuiltAgain() throws Exception {
        ManagedHikariDataSource first = build("rebuilt", 1, Duration.milliseconds(500), Map.of());
        first.start();
        // HikariCP's ten and the gate's two (GateWait, GateWaiting)
        assertThat(metrics.getNames()).filteredOn(name -> name.startsWith("rebuilt.pool.")).hasSize(12)
            .contains("rebuilt.pool.GateWait", "rebuilt.pool.GateWaiting");

        first.stop();
        assertThat(metrics.getNames()).noneMatch(name -> name.startsWith("rebuilt."));
        assertThat(healthChecks.getNames()).isEmpty();

        ManagedHikariDataSource second = build("rebuilt", 1, Duration.milliseconds(500), Map.of());
        try (Connection connection = second.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }
        assertThat(metrics.getNames()).filteredOn(name -> name.startsWith("rebuilt.pool.")).hasSize(12)
            .contains("rebuilt.pool.GateWait", "rebuilt.pool.GateWaiting");
        assertThat(healthChecks.getNames()).containsExactly("rebuilt.pool.ConnectivityCheck");
    }

    @Test
    void aStoppedPoolRefusesConnectionsWithAClearError() throws Exception {
        ManagedHikariDataSource dataSource = build("refuses", 1, Duration.milliseconds(500), Map.of());
        dataSource.start();
        dataSource.stop();

        assertThatThrownBy(dataSource::getConnection)
            .isInstanceOf(SQLException.class)
            .hasMessage("pool refuses has been closed");
    }

    @Test
    void exhaustedPoolTimesOutOnTimeWithAClearError() throws Exception {
        // 5 s: a loaded machine may be a second or two late, a second wait would be 5 s late
        ManagedHikariDataSource dataSource = build("exhausted", 4, Duration.seconds(5), Map.of());
        List<Connection> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            held.add(dataSource.getConnection());
        }
        long started = System.nanoTime();
        try {
            Throwable timedOut = catchThrowable(dataSource::getConnection);
            long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertThat(timedOut).isInstanceOf(SQLException.class).hasMessageContaining("request timed out after");
            // the message carries the pool's own figure
            assertThat(waitedMillis).as("the borrow gave up after %d ms (its timeout: 5,000 ms): %s", waitedMillis,
                timedOut.getMessage()).isBetween(5_000L, 9_000L);
        } finally {
            for (Connection connection : held) {
                connection.close();
            }
        }
    }
}
