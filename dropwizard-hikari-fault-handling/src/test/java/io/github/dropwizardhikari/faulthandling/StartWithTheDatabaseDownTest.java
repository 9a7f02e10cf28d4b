package io.github.dropwizardhikari.faulthandling;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code initialSize: 0} and {@code ignoreExceptionOnPreLoad: true} start the application with the database down;
 * with {@code fault-handling} named, borrowers then fail fast and the pool fills as soon as the database answers.
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

    private void startsAndServesOnceUp(String name, Consumer<HikariDataSourceFactory> keys) throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(DatabaseOutage.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        // the recovery line is INFO: whatever level another test left the logger at, this test reads it
        Level level = logger.getLevel();
        logger.setLevel(Level.INFO);
        OutageDriver.down(true);
        HikariDataSourceFactory factory = TestPools.outageFactory(name, new FaultHandlingExtension());
        // borrowers would wait 30 s for the database: failing fast is shown against that
        factory.setMaxWaitForConnection(Duration.seconds(30));
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
                // the goal is 100 ms; a tenth of the avoided wait leaves a loaded 2-core machine its margin. The
                // first borrower, which finds a pool that has not tried yet, waits for the first attempt only
                long failedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
                assertThat(failedMillis).as("borrow %d failed after %d ms (its timeout: 30,000 ms)", i, failedMillis)
                    .isLessThan(3_000);
            }
            OutageDriver.down(false);
            long upAt = System.nanoTime();
            while (true) {
                try (Connection connection = pool.getConnection()) {
                    assertThat(connection.isValid(1)).isTrue();
                    break;
                } catch (SQLException e) {
                    long unservedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - upAt);
                    assertThat(unservedMillis).as("not served %d ms after the database answered (the pool's timeout: "
                        + "30,000 ms)", unservedMillis).isLessThan(5_000);
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
