package io.github.dropwizardhikari;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a pool does about connections held without bound: {@code networkTimeout} on each borrow (a driver that
 * ignores it is named once), {@code removeAbandoned} on a connection never given back, and the log lines that say
 * why borrows failed and when they succeed again.
 */
class HeldConnectionsTest {
    private final Logger logger = (Logger) LoggerFactory.getLogger(ManagedHikariDataSource.class);
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final List<ManagedDataSource> pools = new ArrayList<>();
    private Level level;

    @BeforeEach
    void capture() {
        logged.start();
        logger.addAppender(logged);
        level = logger.getLevel();
        logger.setLevel(Level.INFO);
    }

    @AfterEach
    void stop() throws Exception {
        for (ManagedDataSource pool : pools) {
            pool.stop();
        }
        logger.detachAppender(logged);
        logger.setLevel(level);
        OutageDriver.down(false);
    }

    private ManagedDataSource pool(HikariDataSourceFactory factory, String name) {
        factory.setMaxSize(1);
        factory.setMaxWaitForConnection(Duration.milliseconds(250));
        ManagedDataSource pool = factory.build(new MetricRegistry(), name);
        pools.add(pool);
        return pool;
    }

    private static HikariDataSourceFactory h2(String database) {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1");
        return factory;
    }

    private List<ILoggingEvent> events(Level level, String containing) {
        return logged.list.stream()
            .filter(event -> event.getLevel() == level && event.getFormattedMessage().contains(containing)).toList();
    }

    @Test
    void theStartSaysTheBoundAndNoWarningForAnEmbeddedDatabase() throws Exception {
        HikariDataSourceFactory factory = h2("held_embedded");
        factory.setNetworkTimeout(Duration.seconds(30));
        ManagedDataSource pool = pool(factory, "held-embedded");
        for (int i = 0; i < 3; i++) {
            pool.getConnection().close();
        }

        assertThat(events(Level.INFO, "Pool held-embedded started: ")).singleElement()
            .extracting(ILoggingEvent::getFormattedMessage).asString()
            .contains(", networkTimeout 30000 ms (a call silent that long fails), extensions: none");
        assertThat(events(Level.WARN, "networkTimeout")).isEmpty();
    }

    @Test
    void aNetworkDriverThatIgnoresNetworkTimeoutsIsNamedInOneWarning() throws Exception {
        Server server = Server.createTcpServer("-tcpPort", "0", "-ifNotExists").start();
        try {
            HikariDataSourceFactory factory = new HikariDataSourceFactory();
            factory.setUrl("jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/mem:held_tcp");
            factory.setNetworkTimeout(Duration.seconds(30));
            ManagedDataSource pool = pool(factory, "held-tcp");
            for (int i = 0; i < 3; i++) {
                pool.getConnection().close();
            }

            assertThat(events(Level.WARN, "networkTimeout cannot bound")).singleElement()
                .extracting(ILoggingEvent::getFormattedMessage).asString()
                .contains("Pool held-tcp", "org.h2.jdbc.JdbcConnection ignores setNetworkTimeout");
        } finally {
            for (ManagedDataSource pool : pools) {
                pool.stop();
            }
            pools.clear();
            server.stop();
        }
    }

    @Test
    void aDriverThatRefusesNetworkTimeoutsIsNamedInOneWarning() throws Exception {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl(NoNetworkTimeoutDriver.url("held_refused"));
        factory.setNetworkTimeout(Duration.seconds(30));
        ManagedDataSource pool = pool(factory, "held-refused");
        String driverClass;
        try (Connection connection = pool.getConnection()) {
            driverClass = connection.unwrap(Connection.class).getClass().getName();
        }
        for (int i = 0; i < 3; i++) {
            pool.getConnection().close();
        }

        assertThat(events(Level.WARN, "networkTimeout cannot bound")).singleElement()
            .extracting(ILoggingEvent::getFormattedMessage).asString()
            .contains("Pool held-refused", driverClass + " refuses setNetworkTimeout: "
                + "java.sql.SQLFeatureNotSupportedException: getNetworkTimeout is not supported");
    }

    @Test
    void noNetworkTimeoutIsSetByDefaultAndTheStartSaysNothingBoundsASilentCall() throws Exception {
        ManagedDataSource pool = pool(h2("held_zero"), "held-zero");
        try (Connection connection = pool.getConnection()) {
            assertThat(connection.getNetworkTimeout()).isZero();
        }

        assertThat(events(Level.INFO, "Pool held-zero started: ")).singleElement()
            .extracting(ILoggingEvent::getFormattedMessage).asString()
            .contains(", networkTimeout 0 (none: nothing in the core bounds a call to a silent database), ");
    }

    @Test
    void aDriverThatRefusesNetworkTimeoutsIsNotWarnedAboutWhenNoneIsAsked() throws Exception {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl(NoNetworkTimeoutDriver.url("held_refused_unasked"));
        ManagedDataSource pool = pool(factory, "held-refused-unasked");
        for (int i = 0; i < 3; i++) {
            pool.getConnection().close();
        }

        assertThat(events(Level.INFO, "Pool held-refused-unasked started: ")).hasSize(1);
        assertThat(events(Level.WARN, "networkTimeout")).isEmpty();
    }

    @Test
    @SuppressWarnings("deprecation")
    void aConnectionNeverClosedIsAbortedAndItsPlaceFreed() throws Exception {
        HikariDataSourceFactory factory = h2("held_leak");
        factory.setRemoveAbandoned(true);
        factory.setRemoveAbandonedTimeout(Duration.milliseconds(500));
        factory.setLogAbandonedConnections(true);
        ManagedDataSource pool = pool(factory, "held-leak");
        pool.start();
        long borrowed = System.nanoTime();
        Connection leaked = pool.getConnection();
        Connection driverConnection = leaked.unwrap(Connection.class);
        // the pool's one connection is held: another borrower waits, then fails
        assertThatThrownBy(pool::getConnection).isInstanceOf(SQLException.class);

        long freedAfter = Requests.awaitMillis(5_000, () -> {
            try (Connection next = pool.getConnection()) {
                return next.isValid(1);
            }
        });

        long sinceBorrow = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - borrowed);
        // held 500 ms, aborted at the next sweep, evicted a second later; the bound allows a loaded machine
        assertThat(sinceBorrow).as("ms from the borrow until the place was free again (%d ms of waiting)",
            freedAfter).isBetween(500L, 5_000L);
        assertThat(driverConnection.isClosed()).isTrue();
        assertThat(pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().getActiveConnections()).isZero();
        List<ILoggingEvent> aborted = events(Level.WARN, "aborting a connection held for more than 500 milliseconds");
        assertThat(events(Level.INFO, "Pool held-leak started: ")).singleElement()
            .extracting(ILoggingEvent::getFormattedMessage).asString()
            .contains(", removeAbandonedTimeout 500 ms (a connection held that long is aborted)");
        assertThat(aborted).singleElement().satisfies(event -> {
            assertThat(event.getFormattedMessage()).startsWith("Pool held-leak:");
            // logAbandonedConnections: the borrower's stack, down to this test
            assertThat(event.getThrowableProxy().getMessage()).isEqualTo("borrowed here");
            assertThat(event.getThrowableProxy().getStackTraceElementProxyArray())
                .anyMatch(frame -> frame.getStackTraceElement().getMethodName()
                    .equals("aConnectionNeverClosedIsAbortedAndItsPlaceFreed"));
        });
    }

    @Test
    @SuppressWarnings("deprecation")
    void connectionsClosedOnAnotherThreadAreNeverAborted() throws Exception {
        HikariDataSourceFactory factory = h2("held_elsewhere");
        factory.setRemoveAbandoned(true);
        factory.setRemoveAbandonedTimeout(Duration.milliseconds(300));
        ManagedDataSource pool = pool(factory, "held-elsewhere");
        ExecutorService closer = Executors.newSingleThreadExecutor();
        try {
            for (int i = 0; i < 50; i++) {
                Connection connection = pool.getConnection();
                closer.submit(() -> {
                    connection.close();
                    return null;
                }).get();
            }
        } finally {
            closer.shutdown();
        }
        TimeUnit.MILLISECONDS.sleep(1_500);

        assertThat(events(Level.WARN, "aborting")).isEmpty();
        try (Connection connection = pool.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }
    }

    @Test
    void theFirstFailedBorrowOfAnOutageIsLoggedOnceWithItsCauseAndTheRecoveryToo() throws Exception {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl(OutageDriver.url("held_outage"));
        ManagedDataSource pool = pool(factory, "held-outage");
        pool.getConnection().close();
        OutageDriver.down(true);
        pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(pool::getConnection).isInstanceOf(SQLException.class);
        }
        OutageDriver.down(false);
        Requests.awaitMillis(5_000, () -> {
            try (Connection connection = pool.getConnection()) {
                return true;
            }
        });

        assertThat(events(Level.WARN, "Pool held-outage: borrows fail from now on")).singleElement()
            .extracting(ILoggingEvent::getFormattedMessage).asString().contains("Connection refused");
        assertThat(events(Level.INFO, "Pool held-outage: serving again")).hasSize(1);
    }

    @Test
    void aFollowUpErrorIsNeverGivenAsTheCauseOfAnOutage() throws Exception {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl(ClosedUnderItDriver.url("held_follow_up"));
        ManagedDataSource pool = pool(factory, "held-follow-up");
        pool.getConnection().close();
        ClosedUnderItDriver.down(true);
        try {
            pool.unwrap(HikariDataSource.class).getHikariPoolMXBean().softEvictConnections();
            // the borrower's own exception still carries the driver's error, as HikariCP gives it
            assertThatThrownBy(pool::getConnection).isInstanceOf(SQLException.class)
                .hasRootCauseMessage("This connection has been closed.");
        } finally {
            ClosedUnderItDriver.down(false);
        }

        assertThat(events(Level.WARN, "Pool held-follow-up: borrows fail from now on")).singleElement()
            .extracting(ILoggingEvent::getFormattedMessage).asString()
            .contains("the last connection attempt failed on a connection already closed, SQLState 08003")
            .doesNotContain("This connection has been closed");
    }

    @Test
    void aPoolWhoseEveryConnectionIsHeldSaysSo() throws Exception {
        ManagedDataSource pool = pool(h2("held_exhausted"), "held-exhausted");
        try (Connection held = pool.getConnection()) {
            assertThatThrownBy(pool::getConnection).isInstanceOf(SQLException.class);
        }

        assertThat(events(Level.WARN, "Pool held-exhausted: borrows fail from now on")).singleElement()
            .extracting(ILoggingEvent::getFormattedMessage).asString()
            .contains("(all 1 connections in use: their borrowers' calls have not returned, or they were not closed)")
            .doesNotContain("caused by");
    }

    /**
     * A borrow an extension's hook refuses (as {@code fair-borrowing}'s gate refuses one whose time ran out) is a
     * failed borrow as HikariCP's own refusal is: the first logs why, once, and the next borrow served logs the end.
     */
    @Test
    void aBorrowRefusedAtAnExtensionsHookIsLoggedAsHikarisOwnRefusalIs() throws Exception {
        AtomicBoolean refusing = new AtomicBoolean(true);
        PoolExtension gate = (config, registry) -> new PoolHooks() {
            @Override
            public Connection borrow(Borrow next) throws SQLException {
                if (refusing.get()) {
                    throw new SQLTransientConnectionException("held-gate - Connection is not available, request "
                        + "timed out after 250ms");
                }
                return next.get();
            }
        };
        HikariDataSourceFactory factory = h2("held_gate");
        factory.setExtensions(List.of(gate));
        ManagedDataSource pool = pool(factory, "held-gate");
        pool.start();
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(pool::getConnection).isInstanceOf(SQLTransientConnectionException.class);
        }
        refusing.set(false);
        pool.getConnection().close();

        assertThat(events(Level.WARN, "Pool held-gate: borrows fail from now on")).singleElement()
            .extracting(ILoggingEvent::getFormattedMessage).asString()
            .contains("held-gate - Connection is not available, request timed out after 250ms");
        assertThat(events(Level.INFO, "Pool held-gate: serving again")).hasSize(1);
    }

    /** Polls a borrow until it succeeds. */
    private static final class Requests {
        @FunctionalInterface
        interface Attempt {
            boolean succeeds() throws SQLException;
        }

        /** @return how long it took; fails after {@code timeoutMillis} */
        static long awaitMillis(long timeoutMillis, Attempt attempt) throws InterruptedException {
            long started = System.nanoTime();
            while (true) {
                try {
                    if (attempt.succeeds()) {
                        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                    }
                } catch (SQLException e) {
                    // not yet
                }
                if (System.nanoTime() - started > TimeUnit.MILLISECONDS.toNanos(timeoutMillis)) {
                    throw new AssertionError("no borrow succeeded within " + timeoutMillis + " ms");
                }
                TimeUnit.MILLISECONDS.sleep(20);
            }
        }
    }
}
