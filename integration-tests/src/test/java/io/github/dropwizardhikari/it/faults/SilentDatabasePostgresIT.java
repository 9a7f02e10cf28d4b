package io.github.dropwizardhikari.it.faults;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import io.github.dropwizardhikari.it.faults.SilentApplication.Run;
import io.github.dropwizardhikari.it.faults.SilentApplication.Shape;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.sql.Connection;
import java.util.concurrent.TimeUnit;

import static io.github.dropwizardhikari.it.faults.SilentApplication.ABANDON_MILLIS;
import static io.github.dropwizardhikari.it.faults.SilentApplication.REQUEST_BOUND_MILLIS;
import static io.github.dropwizardhikari.it.faults.SilentApplication.assertHealth;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A database that goes silent without closing anything (a TCP proxy stops passing bytes: a network blackhole, a hung
 * server, a failover to a new address), under a Jdbi + Hibernate application with four request loops
 * ({@link SilentApplication}), for each pool: silent for a while then back, and silent for good while new connections
 * reach the database (a failover), with and without Tomcat's {@code removeAbandoned}. And {@code removeAbandoned} on
 * connections borrowed and never closed, on a pool of 2.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SilentDatabasePostgresIT {
    private final FaultReport report = FaultReport.shared();
    private SilentApplication application;
    private TestDatabase database;

    @BeforeAll
    void migrate() throws Exception {
        application = SilentApplication.migrated(TestDatabases.postgres().isolated("it_silent"));
        database = application.database();
    }

    @AfterAll
    void writeReport() throws Exception {
        report.write(database.kind().displayName() + " (" + database.source() + ")");
    }

    @ParameterizedTest
    @EnumSource(PoolConfiguration.class)
    void silentThenBack(PoolConfiguration pool) throws Exception {
        Run run = application.run(pool, Shape.SILENT_THEN_BACK, false);
        report.record("Database silent for 8 s, then back (a TCP proxy stops passing bytes without closing, then "
            + "passes them again), 4 request loops on a Jdbi + Hibernate application, `maxSize: 4`, "
            + "`maxWaitForConnection: 2s`, `validationQueryTimeout: 1s`, `hikari:` with `networkTimeout: 3s`: slowest "
            + "request, failed requests, "
            + "serving again after it answers, slowest admin `/healthcheck`, left after `stop()`", pool, run.figure());
        if (pool.isHikari()) {
            assertThat(run.slowestMillis()).as("slowest request, ms").isLessThanOrEqualTo(REQUEST_BOUND_MILLIS + 1_000);
            assertThat(run.servingAgainMillis()).as("ms until serving again after the database answers")
                .isBetween(0L, REQUEST_BOUND_MILLIS + 1_000);
            assertHealth(run);
            assertThat(run.leftConnections()).as("server connections left").isZero();
            assertThat(run.leftThreads()).as("pool threads left").isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(PoolConfiguration.class)
    void silentForGoodNewAddressAnswers(PoolConfiguration pool) throws Exception {
        Run run = application.run(pool, Shape.SILENT_FOR_GOOD, false);
        report.record("Database silent for good, new connections answered from 1 s after (a failover to a new "
            + "address: the open connections never answer again), same application and settings: slowest request, "
            + "failed requests, serving again after the silence began, slowest admin `/healthcheck`, left after "
            + "`stop()`", pool, run.figure());
        if (pool.isHikari()) {
            SilentApplication.assertFailoverBounded(run);
        }
    }

    @ParameterizedTest
    @EnumSource(PoolConfiguration.class)
    void silentForGoodWithRemoveAbandoned(PoolConfiguration pool) throws Exception {
        Run run = application.run(pool, Shape.SILENT_FOR_GOOD, true);
        report.record("The same failover with `removeAbandoned: true`, `removeAbandonedTimeout: 3s` (`hikari:` with "
            + "`networkTimeout: 0`, so that only `removeAbandoned` acts; Tomcat's cleaner runs every "
            + "`evictionInterval`, 5 s by default): slowest request, failed requests, serving again after the silence "
            + "began, slowest admin `/healthcheck`, left after `stop()`", pool, run.figure());
        if (pool.isHikari()) {
            // held 3 s, aborted at the next sweep (at most 1 s later), then a borrow's wait
            assertThat(run.servingAgainMillis()).as("ms until serving again after the silence began")
                .isBetween(0L, ABANDON_MILLIS + 1_000 + 2_000);
            assertThat(run.leftConnections()).as("server connections left").isZero();
            assertThat(run.leftThreads()).as("pool threads left").isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(PoolConfiguration.class)
    @SuppressWarnings("deprecation")
    void connectionsNeverClosedWithRemoveAbandoned(PoolConfiguration pool) throws Exception {
        String name = "it-silent-leak-" + pool.label();
        TestDatabase target = database.withUrl(TestDatabase.withParameter(database.url(), "ApplicationName", name));
        Duration wait = Duration.seconds(1);
        Duration abandon = Duration.milliseconds(ABANDON_MILLIS);
        ManagedDataSource dataSource;
        if (pool.isHikari()) {
            HikariDataSourceFactory factory = pool.hikariFactory(target, 2, wait);
            factory.setRemoveAbandoned(true);
            factory.setRemoveAbandonedTimeout(abandon);
            if (pool == PoolConfiguration.HIKARI_FAULT_HANDLING) {
                // it lends 2 beside the session check's own connection
                factory.setMaxSize(3);
            }
            dataSource = factory.build(new MetricRegistry(), name);
        } else {
            DataSourceFactory factory = PoolConfiguration.tomcat(target, 2, wait);
            if (pool == PoolConfiguration.TOMCAT_SAFE) {
                PoolConfiguration.safe(factory, DataSourceFactory.TransactionIsolation.READ_COMMITTED, null);
            }
            factory.setRemoveAbandoned(true);
            factory.setRemoveAbandonedTimeout(abandon);
            dataSource = factory.build(new MetricRegistry(), name);
        }
        dataSource.start();
        try {
            // both connections borrowed and never closed
            Connection first = dataSource.getConnection();
            Connection second = dataSource.getConnection();
            long leakedAt = System.nanoTime();
            long reclaimedAfter = -1;
            while (System.nanoTime() - leakedAt < TimeUnit.SECONDS.toNanos(15)) {
                if (Requests.selectOne(dataSource)) {
                    reclaimedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - leakedAt);
                    break;
                }
            }
            int serverConnections = application.backends(name);
            report.record("Both connections of a pool of 2 borrowed and never closed, `removeAbandoned: true`, "
                + "`removeAbandonedTimeout: 3s` (Tomcat's cleaner runs every `evictionInterval`, 5 s by default): a "
                + "borrow succeeds again after, server connections then, the leaked connections", pool,
                (reclaimedAfter < 0 ? "no borrow succeeded within 15 s" : "after " + reclaimedAfter + " ms")
                    + ", " + serverConnections + " server connections, leaked ones closed: " + first.isClosed()
                    + " / " + second.isClosed());
            if (pool.isHikari()) {
                // held 3 s, aborted at the next sweep (within 1 s), evicted a second later, then a borrow's wait
                assertThat(reclaimedAfter).as("ms until a borrow succeeded").isBetween(ABANDON_MILLIS,
                    ABANDON_MILLIS + 3_000 + 1_000);
                assertThat(serverConnections).as("server connections (maxSize 2)").isLessThanOrEqualTo(2);
            }
        } finally {
            dataSource.stop();
        }
    }
}
