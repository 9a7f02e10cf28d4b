package io.github.dropwizardhikari.faulthandling;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The role check of pools that expect a primary, on real HikariCP pools over H2; what the server reports of its
 * role is the test's (pgJDBC's parameter statuses, read by {@link PostgresRole}, need a PostgreSQL server).
 */
class ServerRoleTest {
    private final Logger logger = (Logger) LoggerFactory.getLogger(ServerRole.class);
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final List<HikariDataSource> pools = new ArrayList<>();
    private final AtomicReference<String> reported = new AtomicReference<>();
    private final PrimaryServers block = new PrimaryServers();

    @BeforeEach
    void capture() {
        logged.start();
        logger.addAppender(logged);
    }

    @AfterEach
    void close() {
        logger.detachAppender(logged);
        pools.forEach(HikariDataSource::close);
    }

    private ServerRole started(String name) {
        return started(name, block, new PrimaryServers(), Set.of(), true);
    }

    private ServerRole started(String name, PrimaryServers itsBlock, PrimaryServers application,
                               Set<String> endpoints, boolean checks) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl("jdbc:h2:mem:server_role;DB_CLOSE_DELAY=-1");
        config.setMaximumPoolSize(2);
        HikariDataSource pool = new HikariDataSource(config);
        pools.add(pool);
        ServerRole role = new ServerRole(name, itsBlock, application, endpoints, checks, connection -> reported.get());
        role.started(pool);
        return role;
    }

    private List<String> warnings() {
        return logged.list.stream().filter(event -> event.getLevel() == Level.WARN)
            .map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void aWritableServerIsLeftAlone() throws SQLException {
        ServerRole role = started("role-writable");
        Connection connection = pools.get(0).getConnection();

        assertThat(role.borrowed(connection)).isSameAs(connection);
        assertThat(connection.isClosed()).isFalse();
        assertThat(role.problem()).isEmpty();
        assertThat(warnings()).isEmpty();
        connection.close();
    }

    @Test
    void aReadOnlyServerFailsTheBorrowAndRetiresEveryPoolOfTheBlock() throws Exception {
        ServerRole writes = started("role-writes");
        ServerRole reads = started("role-reads");
        HikariDataSource readPool = pools.get(1);
        Connection held = readPool.getConnection();
        reported.set("default_transaction_read_only=on");

        Connection connection = pools.get(0).getConnection();
        assertThatThrownBy(() -> writes.borrowed(connection)).isInstanceOf(SQLException.class)
            .hasMessage("pool role-writes: the server reports default_transaction_read_only=on under a block that "
                + "expects a primary; the block's connections are retired")
            .extracting(e -> ((SQLException) e).getSQLState()).isEqualTo("25006");
        assertThat(connection.isClosed()).isTrue();

        // the pool that only reads never saw the evidence: its connection in use is retired when it is returned
        assertThat(warnings()).hasSize(2).anySatisfy(line -> assertThat(line).startsWith("Pool role-reads: pool "
            + "role-writes found default_transaction_read_only=on: retired all "));
        Connection underHeld = held.unwrap(Connection.class);
        held.close();
        // HikariCP closes a retired connection on its own thread
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!underHeld.isClosed() && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(10);
        }
        assertThat(underHeld.isClosed()).as("the read pool's connection, returned").isTrue();
        assertThat(reads.problem()).get().asString().startsWith("pool role-reads cannot serve a block that expects "
            + "a primary: pool role-writes found default_transaction_read_only=on (");
        assertThat(writes.problem()).get().asString().contains("the server reports default_transaction_read_only=on");

        // once a connection reports a writable server, the checks are healthy again
        reported.set(null);
        assertThat(writes.problem()).isEmpty();
        assertThat(reads.problem()).isEmpty();
    }

    @Test
    void aStoppedPoolLearnsNothing() throws SQLException {
        ServerRole writes = started("role-writes-2");
        ServerRole stopped = started("role-stopped");
        stopped.stopping();
        reported.set("in_hot_standby=on");

        assertThatThrownBy(() -> writes.borrowed(pools.get(0).getConnection())).isInstanceOf(SQLException.class);
        assertThat(warnings()).singleElement().asString().startsWith("Pool role-writes-2: the server reports "
            + "in_hot_standby=on");
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc:postgresql://db/app?targetServerType=secondary",
        "jdbc:postgresql://a,b/app?targetServerType=preferSecondary",
        "jdbc:postgresql://db/app?options=-c%20default_transaction_read_only=on"})
    void aBlockThatAsksForAStandbyIsLeftAlone(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);

        assertThat(ServerRole.of(config, block, new PrimaryServers(), true)).isNull();
    }

    @Test
    void aReadOnlyBlockIsLeftAloneAndAPrimaryBlockIsChecked() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://a,b/app?targetServerType=primary");
        assertThat(ServerRole.of(config, block, new PrimaryServers(), true)).isNotNull();

        config.setReadOnly(true);
        assertThat(ServerRole.of(config, block, new PrimaryServers(), true)).isNull();
    }

    @Test
    void readOnlyEvidenceReachesThePoolsOfOtherBlocksOnTheSameServerOnly() throws Exception {
        PrimaryServers application = new PrimaryServers();
        ServerRole writes = started("role-app-writes", block, application, Set.of("db-a:5432", "10.0.0.1:5432"),
            true);
        // another block, without failoverEviction, whose URL names the address the first one's host resolved to
        started("role-app-reads", new PrimaryServers(), application, Set.of("10.0.0.1:5432"), false);
        ServerRole elsewhere = started("role-app-elsewhere", new PrimaryServers(), application,
            Set.of("db-b:5432", "10.0.0.2:5432"), true);
        reported.set("in_hot_standby=on");

        assertThatThrownBy(() -> writes.borrowed(pools.get(0).getConnection())).isInstanceOf(SQLException.class);

        assertThat(warnings()).hasSize(2).anySatisfy(line -> assertThat(line).startsWith("Pool role-app-reads: pool "
            + "role-app-writes found in_hot_standby=on: retired all ")).anySatisfy(line -> assertThat(line)
            .startsWith("Pool role-app-writes: the server reports in_hot_standby=on: retired all ")
            .endsWith("; retired too, reaching the same server: role-app-reads"));
        reported.set(null);
        assertThat(elsewhere.problem()).as("a pool on another server").isEmpty();
    }

    @Test
    void aPoolThatDoesNotLookForEvidenceHandsOutItsConnections() throws SQLException {
        ServerRole reads = started("role-no-check", block, new PrimaryServers(), Set.of(), false);
        reported.set("in_hot_standby=on");
        Connection connection = pools.get(0).getConnection();

        assertThat(reads.borrowed(connection)).isSameAs(connection);
        assertThat(warnings()).isEmpty();
        connection.close();
    }

    @Test
    void endpointsAreEachHostAndPortOfTheUrlAndTheAddressesTheyResolveTo() {
        assertThat(ServerRole.endpoints("jdbc:postgresql://127.0.0.1:6543,[::1]/app?targetServerType=primary"))
            .contains("127.0.0.1:6543", "::1:5432", "0:0:0:0:0:0:0:1:5432");
        assertThat(ServerRole.endpoints("jdbc:postgresql://localhost/app")).contains("localhost:5432",
            "127.0.0.1:5432");
        assertThat(ServerRole.endpoints("jdbc:mariadb://db.invalid:3307/app")).containsExactly("db.invalid:3307");
        assertThat(ServerRole.endpoints("jdbc:h2:mem:app")).containsExactly("jdbc:h2:mem:app");
    }
}
