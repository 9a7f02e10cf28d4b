package io.github.dropwizardhikari;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

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
    void initialSizeZeroStartsAndFillsWhenTheDatabaseAnswers() throws Exception {
        startsAndServesOnceUp("down-initial", factory -> {
            factory.setMinSize(0);
            factory.setInitialSize(0);
        });
    }

    @Test
    void ignoreExceptionOnPreLoadStartsAndFillsWhenTheDatabaseAnswers() throws Exception {
        startsAndServesOnceUp("down-ignore", factory -> factory.setIgnoreExceptionOnPreLoad(true));
    }

    /**
     * The core alone behaves as HikariCP does: a borrow waits its whole {@code maxWaitForConnection} and fails
     * naming the cause (failing fast is the fault-handling extension's).
     */
    private void startsAndServesOnceUp(String name, java.util.function.Consumer<HikariDataSourceFactory> keys)
        throws Exception {
        OutageDriver.down(true);
        HikariDataSourceFactory factory = factory(name);
        keys.accept(factory);
        ManagedDataSource pool = factory.build(metrics, name);
        try {
            pool.start();
            for (int i = 0; i < 2; i++) {
                long started = System.nanoTime();
                assertThatThrownBy(() -> {
                    try (Connection ignored = pool.getConnection()) {
                        throw new AssertionError("got a connection while the database is down");
                    }
                }).isInstanceOf(SQLTransientConnectionException.class)
                    .hasRootCauseMessage("Connection refused");
                // waited for the database, as HikariCP does: most of the one-second maxWaitForConnection
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).as("borrow %d, ms", i)
                    .isGreaterThanOrEqualTo(900);
            }
            OutageDriver.down(false);
            long upAt = System.nanoTime();
            while (true) {
                try (Connection connection = pool.getConnection()) {
                    assertThat(connection.isValid(1)).isTrue();
                    break;
                } catch (SQLException e) {
                    // HikariCP's back-off between attempts reaches 5 s; 30 s is far beyond any of them
                    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - upAt)).as("ms until served")
                        .isLessThan(30_000);
                    TimeUnit.MILLISECONDS.sleep(10);
                }
            }
        } finally {
            pool.stop();
        }
    }
}
