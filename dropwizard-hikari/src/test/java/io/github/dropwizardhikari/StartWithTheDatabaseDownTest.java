package io.github.dropwizardhikari;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.faults.DatabaseOutage;
import io.github.dropwizardhikari.faults.OutageDriver;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code initialSize: 0} and {@code ignoreExceptionOnPreLoad: true} start the application with the database down,
 * as they do under {@code database:}; the default still refuses to start.
 */
class StartWithTheDatabaseDownTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, a database that is down at start."
            + " WARN and ERROR lines in this log are expected.");
    }

    private final MetricRegistry metrics = new MetricRegistry();

    @AfterEach
    void databaseUp() {
        OutageDriver.down(false);
    }

    private static HikariDataSourceFactory factory(String name) {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setDriverClass(OutageDriver.class.getName());
        factory.setUrl(OutageDriver.url(name));
        factory.setMaxSize(2);
        factory.setMaxWaitForConnection(Duration.seconds(1));
        return factory;
    }

    @Test
    void bothKeysMapOntoHikariCpsInitializationFailTimeoutWithoutAWarning() {
        HikariDataSourceFactory lazy = factory("keys-initial");
        lazy.setMinSize(0);
        lazy.setInitialSize(0);
        assertThat(lazy.toHikariConfig(metrics, "keys-initial").getInitializationFailTimeout()).isEqualTo(-1);
        assertThat(lazy.getTomcatOnlySettings()).isEmpty();

        HikariDataSourceFactory ignoring = factory("keys-ignore");
        ignoring.setIgnoreExceptionOnPreLoad(true);
        assertThat(ignoring.toHikariConfig(metrics, "keys-ignore").getInitializationFailTimeout()).isZero();
        assertThat(ignoring.getTomcatOnlySettings()).isEmpty();

        HikariDataSourceFactory explicit = factory("keys-explicit");
        explicit.setMinSize(0);
        explicit.setInitialSize(0);
        explicit.setIgnoreExceptionOnPreLoad(true);
        explicit.setInitializationFailTimeout(Duration.seconds(2));
        assertThat(explicit.toHikariConfig(metrics, "keys-explicit").getInitializationFailTimeout()).isEqualTo(2_000);

        HikariDataSourceFactory defaults = factory("keys-default");
        assertThat(defaults.getInitializationFailTimeout()).isEqualTo(Duration.milliseconds(1));
        assertThat(defaults.toHikariConfig(metrics, "keys-default").getInitializationFailTimeout()).isEqualTo(1);

        HikariDataSourceFactory otherValues = factory("keys-other");
        otherValues.setInitialSize(1);
        otherValues.setIgnoreExceptionOnPreLoad(false);
        assertThat(otherValues.getTomcatOnlySettings()).containsExactlyInAnyOrder("initialSize",
            "ignoreExceptionOnPreLoad");
    }

    @Test
    void anInitializationFailTimeoutGivenWinsEvenAtItsDefaultAndANullOneIsNotGiven() {
        HikariDataSourceFactory atDefault = factory("keys-at-default");
        atDefault.setMinSize(0);
        atDefault.setInitialSize(0);
        atDefault.setInitializationFailTimeout(Duration.milliseconds(1));
        assertThat(atDefault.toHikariConfig(metrics, "keys-at-default").getInitializationFailTimeout()).isEqualTo(1);

        HikariDataSourceFactory nullOne = factory("keys-null");
        nullOne.setMinSize(0);
        nullOne.setInitialSize(0);
        nullOne.setInitializationFailTimeout(null);
        assertThat(nullOne.getInitializationFailTimeout()).isEqualTo(Duration.milliseconds(1));
        assertThat(nullOne.toHikariConfig(metrics, "keys-null").getInitializationFailTimeout()).isEqualTo(-1);
    }

    @Test
    void byDefaultThePoolRefusesToStartWithTheDatabaseDown() throws Exception {
        OutageDriver.down(true);
        ManagedDataSource pool = factory("down-default").build(metrics, "down-default");
        try {
            assertThatThrownBy(pool::start).isInstanceOf(SQLException.class)
                .hasMessageContaining("could not start").hasMessageContaining("Connection refused");
        } finally {
            pool.stop();
        }
    }

    @Test
    void initialSizeZeroStartsFailsFastAndFillsWhenTheDatabaseAnswersLoggingOnce() throws Exception {
        startsAndServesOnceUp("down-initial", factory -> {
            factory.setMinSize(0);
            factory.setInitialSize(0);
        });
    }

    @Test
    void ignoreExceptionOnPreLoadStartsFailsFastAndFillsWhenTheDatabaseAnswersLoggingOnce() throws Exception {
        startsAndServesOnceUp("down-ignore", factory -> factory.setIgnoreExceptionOnPreLoad(true));
    }

    private void startsAndServesOnceUp(String name, java.util.function.Consumer<HikariDataSourceFactory> keys)
        throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(DatabaseOutage.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        // the recovery line is INFO: whatever level another test left the logger at, this test reads it
        Level level = logger.getLevel();
        logger.setLevel(Level.INFO);
        OutageDriver.down(true);
        HikariDataSourceFactory factory = factory(name);
        keys.accept(factory);
        ManagedDataSource pool = factory.build(metrics, name);
        try {
            pool.start();
            for (int i = 0; i < 10; i++) {
                long started = System.nanoTime();
                assertThatThrownBy(() -> {
                    try (Connection ignored = pool.getConnection()) {
                        throw new AssertionError("got a connection while the database is down");
                    }
                }).isInstanceOf(SQLTransientConnectionException.class).hasMessageContaining("Connection refused");
                // the goal is 100 ms; the margin is for a loaded 2-core machine. The first borrower, which finds a
                // pool that has not tried yet, waits for the first attempt only, not its whole second
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).as("borrow %d", i)
                    .isLessThan(300);
            }
            OutageDriver.down(false);
            long upAt = System.nanoTime();
            while (true) {
                try (Connection connection = pool.getConnection()) {
                    assertThat(connection.isValid(1)).isTrue();
                    break;
                } catch (SQLException e) {
                    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - upAt)).isLessThan(5_000);
                    TimeUnit.MILLISECONDS.sleep(10);
                }
            }
        } finally {
            logger.detachAppender(appender);
            logger.setLevel(level);
            pool.stop();
        }
        assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage)
            .filteredOn(message -> message.startsWith("Pool " + name + ": cannot connect to the database"))
            .hasSize(1);
        assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage)
            .filteredOn(message -> message.startsWith("Pool " + name + ": the database accepts connections again"))
            .hasSize(1);
    }
}
