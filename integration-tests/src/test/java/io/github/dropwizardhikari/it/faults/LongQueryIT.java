package io.github.dropwizardhikari.it.faults;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.it.db.DatabaseKind;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No failure at all: one request runs a 45 s query (the server sends nothing while it runs) beside two request
 * loops, on each pool with its defaults and no {@code networkTimeout} set, on PostgreSQL and on MariaDB. No default
 * may cut it: the query returns its row, and no request of the loops fails. The eight tests run at once (each its own
 * pool): they spend their time waiting on the query. Other suites do not run beside them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LongQueryIT {
    private static final int QUERY_SECONDS = 45;
    private static final int LOOPS = 2;

    private final FaultReport report = FaultReport.shared();

    @BeforeAll
    static void saysWhatItDoes() {
        System.out.println("This suite runs a 45 s query on each pool, PostgreSQL and MariaDB; nothing fails on "
            + "purpose.");
    }

    @AfterAll
    void writeReport() throws Exception {
        TestDatabase postgres = TestDatabases.postgres();
        TestDatabase mariadb = TestDatabases.mariadb();
        report.write(postgres.kind().displayName() + " (" + postgres.source() + ") and "
            + mariadb.kind().displayName() + " (" + mariadb.source() + ")");
    }

    static Stream<Arguments> cells() {
        return Stream.of(DatabaseKind.POSTGRES, DatabaseKind.MARIADB).flatMap(kind ->
            Arrays.stream(PoolConfiguration.values()).map(pool -> Arguments.of(kind, pool)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cells")
    @Execution(ExecutionMode.CONCURRENT)
    void aFortyFiveSecondQueryRunsToItsEnd(DatabaseKind kind, PoolConfiguration pool) throws Exception {
        TestDatabase database = kind == DatabaseKind.POSTGRES ? TestDatabases.postgres() : TestDatabases.mariadb();
        String sleep = kind == DatabaseKind.POSTGRES ? "SELECT pg_sleep(" + QUERY_SECONDS + "), 42"
            : "SELECT SLEEP(" + QUERY_SECONDS + "), 42";
        MetricRegistry metrics = new MetricRegistry();
        String name = "it-long-query-" + kind.name().toLowerCase(Locale.ROOT) + "-" + pool.label();
        ManagedDataSource dataSource = pool.build(database, name, LOOPS + 2, Duration.seconds(2), metrics);
        dataSource.start();
        try (Requests.Loops loops = new Requests.Loops(dataSource, LOOPS)) {
            long started = System.nanoTime();
            int answer;
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                 ResultSet result = statement.executeQuery(sleep)) {
                assertThat(result.next()).isTrue();
                answer = result.getInt(2);
            }
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            loops.stop();
            int failed = loops.failures();
            int total = loops.served() + failed;
            report.record("No failure: a " + QUERY_SECONDS + " s query (`pg_sleep`, MariaDB's `SLEEP`) beside "
                + LOOPS + " request loops, each pool's defaults, no `networkTimeout` set: its result, the loops' "
                + "requests (" + kind.displayName() + ")", pool, "returned its row after " + tookMillis + " ms; "
                + failed + " of " + total + " requests failed");
            assertThat(answer).isEqualTo(42);
            assertThat(tookMillis).isGreaterThanOrEqualTo(QUERY_SECONDS * 1_000L);
            assertThat(total).as("requests of the loops").isPositive();
            assertThat(failed).as("failed requests of the loops").isZero();
            if (pool == PoolConfiguration.HIKARI_FAULT_HANDLING) {
                // the session check is on beside the query, on both databases: its connection is the last of maxSize
                assertThat(metrics.getGauges().get(name + ".pool.MaxConnections").getValue())
                    .as("what the pool lends beside the session check's connection").isEqualTo(LOOPS + 1);
            }
        } finally {
            dataSource.stop();
        }
    }
}
