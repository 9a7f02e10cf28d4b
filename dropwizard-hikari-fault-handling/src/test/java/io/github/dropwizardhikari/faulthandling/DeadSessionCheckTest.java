package io.github.dropwizardhikari.faulthandling;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The session check's decisions, one round at a time on a clock of the test's: what the server says of its sessions
 * is the test's. H2 connections stand for the borrowed ones and the check's own; an abort closes them here, since
 * H2's own {@code abort} leaves a connection of its embedded database open.
 */
class DeadSessionCheckTest {
    private static final long SILENCE_MILLIS = 5_000;

    private final Logger logger = (Logger) LoggerFactory.getLogger(DeadSessionCheck.class);
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final AtomicLong now = new AtomicLong();
    private final List<Connection> opened = new ArrayList<>();
    private final List<Connection> monitors = new ArrayList<>();
    private final FakeServer server = new FakeServer();
    private final DeadSessionCheck check = new DeadSessionCheck("sessions", server, this::open, 1_000,
        SILENCE_MILLIS, now::get);

    /** The server as the check sees it: the sessions it holds, or the error it answers with. */
    private static final class FakeServer implements DeadSessionCheck.Sessions {
        final Map<Connection, Long> ids = new IdentityHashMap<>();
        final Set<Long> held = new HashSet<>();
        @Nullable
        SQLException failure;
        @Nullable
        String pooler;
        int asked;

        @Override
        public long id(Connection connection) {
            return ids.getOrDefault(connection, -1L);
        }

        @Override
        public Set<Long> known(Connection monitor, Collection<Long> ids) throws SQLException {
            asked++;
            if (failure != null) {
                throw failure;
            }
            Set<Long> known = new HashSet<>(ids);
            known.retainAll(held);
            return known;
        }

        @Override
        public @Nullable String unusable(Connection monitor) {
            return pooler;
        }
    }

    @BeforeEach
    void capture() {
        logged.start();
        logger.addAppender(logged);
    }

    @AfterEach
    void close() throws SQLException {
        logger.detachAppender(logged);
        check.stop();
        for (Connection connection : opened) {
            connection.close();
        }
    }

    private Connection open() throws SQLException {
        Connection h2 = DriverManager.getConnection("jdbc:h2:mem:");
        opened.add(h2);
        Connection connection = (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
            new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                if (method.getName().equals("abort")) {
                    h2.close();
                    return null;
                }
                try {
                    return method.invoke(h2, args);
                } catch (InvocationTargetException e) {
                    throw e.getCause();
                }
            });
        monitors.add(connection);
        return connection;
    }

    private Connection borrowed(long pid) throws SQLException {
        Connection connection = open();
        server.ids.put(connection, pid);
        server.held.add(pid);
        check.borrowed(connection);
        return connection;
    }

    private void round(long afterMillis) {
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(afterMillis));
        check.check();
    }

    private List<String> warnings() {
        return logged.list.stream().filter(event -> event.getLevel() == Level.WARN)
            .map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void aSessionTheServerHoldsIsNeverCutHoweverLongItIsBorrowed() throws SQLException {
        Connection longQuery = borrowed(101);
        for (int i = 0; i < 100; i++) {
            round(1_000);
        }

        assertThat(longQuery.isClosed()).isFalse();
        assertThat(server.asked).isEqualTo(100);
        assertThat(warnings()).isEmpty();
    }

    @Test
    void aSessionMissingOnceIsLeftAloneAndTheSecondAnswerComesFromANewConnection() throws SQLException {
        Connection connection = borrowed(102);
        round(1_000);
        Connection firstMonitor = monitors.get(monitors.size() - 1);
        server.held.remove(102L);
        round(1_000);
        assertThat(connection.isClosed()).as("missing from one answer").isFalse();
        assertThat(firstMonitor.isClosed()).as("the monitor that missed it is replaced").isTrue();
        // back in the next answer (the first was wrong, as a monitor on the old server would be): nothing done
        server.held.add(102L);
        round(1_000);
        server.held.remove(102L);
        round(1_000);

        assertThat(connection.isClosed()).isFalse();
        assertThat(warnings()).isEmpty();
    }

    @Test
    void aSessionMissingFromTwoConnectionsInARowIsAborted() throws SQLException {
        Connection dead = borrowed(103);
        Connection alive = borrowed(104);
        round(1_000);
        server.held.remove(103L);
        round(1_000);
        round(1_000);

        assertThat(dead.isClosed()).isTrue();
        assertThat(alive.isClosed()).isFalse();
        assertThat(check.watched()).isEqualTo(1);
        assertThat(warnings()).singleElement().asString()
            .contains("Pool sessions: aborted a connection borrowed 3000 ms ago: the server does not hold its "
                + "session (pid 103) any more");
    }

    @Test
    void severalSessionsGoneAtOnceRetireTheIdleConnectionsAndOneDoesNot() throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:mem:dead_sessions;DB_CLOSE_DELAY=-1");
        config.setMaximumPoolSize(2);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            check.attach(pool);
            Connection idle = pool.getConnection();
            Connection idleDriver = idle.unwrap(Connection.class);
            idle.close();
            Connection one = borrowed(112);
            round(1_000);
            server.held.remove(112L);
            round(1_000);
            round(1_000);
            assertThat(one.isClosed()).isTrue();
            assertThat(idleDriver.isClosed()).as("one session gone: the idle connection stays").isFalse();

            borrowed(113);
            borrowed(114);
            round(1_000);
            server.held.remove(113L);
            server.held.remove(114L);
            round(1_000);
            round(1_000);
            // HikariCP closes a retired idle connection on its own thread
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!idleDriver.isClosed() && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(10);
            }
            assertThat(idleDriver.isClosed()).as("two sessions gone at once: the idle connection retired").isTrue();
            assertThat(warnings()).anySatisfy(line -> assertThat(line)
                .isEqualTo("Pool sessions: 2 sessions gone at once, as after a failover: retired the pool's idle "
                    + "connections too"));
        }
    }

    @Test
    void aServerSilentPastTheLimitHasEveryBorrowedConnectionAborted() throws SQLException {
        Connection first = borrowed(105);
        Connection second = borrowed(106);
        round(1_000);
        server.failure = new SQLTimeoutException("Read timed out");
        round(4_000);
        assertThat(first.isClosed()).as("silent for 4 s of 5").isFalse();
        round(2_000);

        assertThat(first.isClosed()).isTrue();
        assertThat(second.isClosed()).isTrue();
        assertThat(warnings()).singleElement().asString()
            .contains("Pool sessions: the server has not answered the session check for 6000 ms "
                + "(java.sql.SQLTimeoutException: Read timed out): aborted 2 borrowed connection(s)");
    }

    @Test
    void aServerThatAnswersWithARefusalIsNotSilent() throws SQLException {
        Connection connection = borrowed(107);
        round(1_000);
        server.failure = new SQLException("sorry, too many clients already", "53300");
        for (int i = 0; i < 20; i++) {
            round(1_000);
        }

        assertThat(connection.isClosed()).isFalse();
        assertThat(warnings()).singleElement().asString().contains("the session check cannot run now");
    }

    @Test
    void nothingIsAskedOrOpenedWhileNoConnectionIsHeldForAnInterval() throws SQLException {
        borrowed(110);
        int connections = opened.size();
        round(500);
        assertThat(server.asked).isZero();
        assertThat(opened).hasSize(connections);
        round(500);
        assertThat(server.asked).as("held for one interval now").isEqualTo(1);
        assertThat(opened).hasSize(connections + 1);

        borrowed(111);
        server.held.remove(111L);
        round(1_000);
        round(1_000);
        assertThat(warnings()).as("a second borrowed connection is asked about only once held an interval")
            .singleElement().asString().contains("(pid 111)");
    }

    @Test
    void aConnectionReturnedIsForgotten() throws SQLException {
        Connection connection = borrowed(108);
        connection.close();
        round(1_000);

        assertThat(check.watched()).isZero();
    }

    @Test
    void behindAPoolerTheCheckTurnsItselfOffAndSaysWhy() throws SQLException {
        server.pooler = "a pooler such as PgBouncer stands between the pool and the server";
        Connection connection = borrowed(109);
        server.held.clear();
        for (int i = 0; i < 5; i++) {
            round(1_000);
        }

        assertThat(connection.isClosed()).isFalse();
        assertThat(server.asked).isZero();
        assertThat(warnings()).singleElement().asString()
            .contains("Pool sessions: sessions are not checked: a pooler such as PgBouncer");
    }

    @Test
    void theChecksConnectionCountsWithinMaxSizeAndIsGivenBackWhenTheCheckTurnsOff() throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setPoolName("within");
        config.setJdbcUrl("jdbc:postgresql://db/app");
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(4);

        DeadSessionCheck reserving = DeadSessionChecks.of(config, 1_000, SILENCE_MILLIS);

        assertThat(reserving).isNotNull();
        assertThat(config.getMaximumPoolSize()).as("what the pool lends beside the check's one").isEqualTo(3);
        assertThat(config.getMinimumIdle()).isEqualTo(3);

        // behind a pooler the check turns itself off: the pool lends maxSize again
        server.pooler = "a pooler such as PgBouncer stands between the pool and the server";
        check.reserved(4, 2);
        HikariConfig lent = new HikariConfig();
        lent.setJdbcUrl("jdbc:h2:mem:");
        lent.setMaximumPoolSize(3);
        lent.setMinimumIdle(2);
        try (HikariDataSource pool = new HikariDataSource(lent)) {
            check.attach(pool);
            borrowed(110);
            round(1_000);

            assertThat(pool.getHikariConfigMXBean().getMaximumPoolSize()).isEqualTo(4);
            assertThat(pool.getHikariConfigMXBean().getMinimumIdle()).isEqualTo(2);
            assertThat(warnings()).singleElement().asString().endsWith("the pool lends up to maxSize (4) again");
        }
    }

    @Test
    void withMaxSizeOneTheCheckCannotRunWithinItAndSaysSoOnce() {
        HikariConfig config = new HikariConfig();
        config.setPoolName("single");
        config.setJdbcUrl("jdbc:postgresql://db/app");
        config.setMaximumPoolSize(1);
        config.setMinimumIdle(1);

        assertThat(DeadSessionChecks.of(config, 1_000, SILENCE_MILLIS)).isNull();
        assertThat(config.getMaximumPoolSize()).isEqualTo(1);
        assertThat(warnings()).singleElement().asString().contains("Pool single: no session check: maxSize is 1");
    }

    @Test
    void onMariaDbTheCheckAsksTheProcessListAndSaysSoAtStartWhileH2HasNothingToCheck() {
        HikariConfig mariadb = config("maria", "jdbc:mariadb://db:3306/app");
        HikariConfig several = config("maria-hosts", "jdbc:mariadb:sequential://db1,db2/app");
        HikariConfig h2 = config("embedded", "jdbc:h2:mem:app");
        logger.setLevel(Level.INFO);
        try {
            assertThat(DeadSessionChecks.of(mariadb, 1_000, SILENCE_MILLIS)).isNotNull();
            assertThat(mariadb.getMaximumPoolSize()).as("what the pool lends beside the check's one").isEqualTo(3);
            // the pool's sockets are made where the check can close a dead session's one; a block's own is kept
            assertThat(mariadb.getDataSourceProperties().getProperty("socketFactory"))
                .isEqualTo(MariaDbSocketFactory.class.getName());
            HikariConfig own = config("maria-own", "jdbc:mariadb://db:3306/app");
            own.addDataSourceProperty("socketFactory", "com.example.Sockets");
            assertThat(DeadSessionChecks.of(own, 1_000, SILENCE_MILLIS)).isNotNull();
            assertThat(own.getDataSourceProperties().getProperty("socketFactory")).isEqualTo("com.example.Sockets");
            assertThat(DeadSessionChecks.of(several, 1_000, SILENCE_MILLIS)).isNull();
            assertThat(DeadSessionChecks.of(h2, 1_000, SILENCE_MILLIS)).isNull();
        } finally {
            logger.setLevel(null);
        }

        assertThat(logged.list).map(ILoggingEvent::getFormattedMessage).containsExactly(
            "Pool maria: sessions checked every 1000 ms while a connection is borrowed that long, on one connection of "
                + "the check's own (MariaDB's information_schema.PROCESSLIST by thread id) within maxSize 4: the pool "
                + "lends at most 3, minSize 3; one whose session the server no longer holds is aborted, and every one "
                + "when the server has not answered for 5000 ms; a query on a session it holds runs to its end",
            "Pool maria-own: sessions checked every 1000 ms while a connection is borrowed that long, on one "
                + "connection of the check's own (MariaDB's information_schema.PROCESSLIST by thread id) within "
                + "maxSize 4: the pool lends at most 3, minSize 3; one whose session the server no longer holds is "
                + "aborted, and every one when the server has not answered for 5000 ms; a query on a session it holds "
                + "runs to its end",
            "Pool maria-hosts: no session check: the URL names several hosts, so sessions may live on servers the "
                + "check's own connection does not reach",
            "Pool embedded: no session check: H2 has no view of its sessions to ask");
    }

    @Test
    void aMariaDbSessionIsNamedByItsThreadIdInTheLog() throws SQLException {
        assertThat(new MariaDbSessions().describe(42)).isEqualTo("thread id 42");
        assertThat(server.describe(42)).isEqualTo("pid 42");
        // a connection of another driver has no MariaDB thread id: the check leaves it alone
        assertThat(new MariaDbSessions().id(open())).isEqualTo(-1);
    }

    private static HikariConfig config(String name, String url) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(4);
        config.setMinimumIdle(4);
        return config;
    }
}
