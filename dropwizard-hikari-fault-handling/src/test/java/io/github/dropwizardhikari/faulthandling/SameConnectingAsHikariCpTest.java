package io.github.dropwizardhikari.faulthandling;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariDataSource;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The same block built twice, by HikariCP alone (no extension named) and with {@code fault-handling}: the same driver
 * instance connects, with the same properties, and a block no driver can serve fails with the same error.
 */
class SameConnectingAsHikariCpTest {
    @BeforeEach
    void forgetConnects() {
        RecordingDriver.CONNECTS.clear();
    }

    /** What one pool built from the block did: the connects its driver saw, or the error it raised. */
    private record Outcome(List<RecordingDriver.Connect> connects, Throwable failure) {
    }

    /** @return what HikariCP alone did, then what it did with the fault handling */
    private static List<Outcome> sideBySide(String name, Consumer<HikariDataSourceFactory> block) {
        List<Outcome> outcomes = new ArrayList<>();
        for (boolean faultHandling : new boolean[] {false, true}) {
            HikariDataSourceFactory factory = new HikariDataSourceFactory();
            factory.setMaxSize(1);
            block.accept(factory);
            factory.setExtensions(faultHandling ? List.of(new FaultHandlingExtension()) : List.of());
            ManagedHikariDataSource pool = (ManagedHikariDataSource) factory.build(new MetricRegistry(), name);
            RecordingDriver.CONNECTS.clear();
            Throwable failure = catchThrowable(() -> {
                try (Connection ignored = pool.getConnection()) {
                    // connected
                }
            });
            pool.stop();
            outcomes.add(new Outcome(List.copyOf(RecordingDriver.CONNECTS), failure));
        }
        return outcomes;
    }

    private static Driver registered(Class<?> type) {
        return Collections.list(DriverManager.getDrivers()).stream().filter(type::isInstance).findFirst()
            .orElseThrow();
    }

    @Test
    void theDriverRegisteredUnderTheNamedClassConnectsWithTheSameProperties() throws Exception {
        List<Outcome> outcomes = sideBySide("same-registered", factory -> {
            factory.setDriverClass(RecordingDriver.class.getName());
            factory.setUrl(RecordingDriver.url("same-registered"));
            factory.setUser("app");
            factory.setPassword("app-password");
            // HikariCP puts the block's user over the properties' at each attempt, and keeps the properties' password
            factory.setProperties(Map.of("user", "from-properties", "password", "", "applicationName", "orders"));
        });
        Driver registered = registered(RecordingDriver.class);
        for (Outcome outcome : outcomes) {
            assertThat(outcome.failure()).isNull();
            assertThat(outcome.connects()).isNotEmpty().allSatisfy(connect -> assertThat(connect.driver())
                .isSameAs(registered));
        }
        assertThat(outcomes.get(1).connects().get(0).properties())
            .isEqualTo(outcomes.get(0).connects().get(0).properties())
            .containsEntry("user", "app").containsEntry("applicationName", "orders");
    }

    @Test
    void withoutADriverClassDriverManagersDriverForTheUrlConnects() throws Exception {
        Driver registered = registered(RecordingDriver.class);
        List<Outcome> outcomes = sideBySide("same-by-url", factory -> factory.setUrl(
            RecordingDriver.url("same-by-url")));
        for (Outcome outcome : outcomes) {
            assertThat(outcome.failure()).isNull();
            assertThat(outcome.connects()).isNotEmpty().allSatisfy(connect -> assertThat(connect.driver())
                .isSameAs(registered));
        }
    }

    @Test
    void aDriverClassNoOneRegisteredIsInstantiatedAsHikariCpDoes() throws Exception {
        List<Outcome> outcomes = sideBySide("same-unregistered", factory -> {
            factory.setDriverClass(RecordingDriver.Unregistered.class.getName());
            factory.setUrl(RecordingDriver.Unregistered.url("same-unregistered"));
        });
        assertThat(Collections.list(DriverManager.getDrivers())).noneMatch(RecordingDriver.Unregistered.class::isInstance);
        for (Outcome outcome : outcomes) {
            assertThat(outcome.failure()).isNull();
            // each pool makes an instance of its own: the same class, made the same way
            assertThat(outcome.connects()).isNotEmpty().allSatisfy(connect -> assertThat(connect.driver())
                .isExactlyInstanceOf(RecordingDriver.Unregistered.class));
        }
    }

    @Test
    void aNamedDriverThatRefusesTheUrlFailsTheSameWay() {
        List<Outcome> outcomes = sideBySide("same-refused", factory -> {
            factory.setDriverClass(RecordingDriver.class.getName());
            factory.setUrl("jdbc:h2:mem:same-refused");
        });
        assertSameFailure(outcomes, "claims to not accept jdbcUrl");
    }

    @Test
    void aUrlNoDriverTakesFailsTheSameWay() {
        List<Outcome> outcomes = sideBySide("same-no-driver", factory -> factory.setUrl(
            "jdbc:nosuchdriver://db/orders?password=secret"));
        assertSameFailure(outcomes, "Failed to get driver instance");
        assertThat(outcomes.get(1).failure().getCause()).hasMessageNotContaining("secret");
    }

    private static void assertSameFailure(List<Outcome> outcomes, String hikariCpsWords) {
        Throwable alone = outcomes.get(0).failure();
        Throwable withFaultHandling = outcomes.get(1).failure();
        // the core names the pool and the deepest reason; HikariCP's own error is the cause
        assertThat(alone).isInstanceOf(SQLException.class).hasMessageStartingWith("pool ");
        assertThat(alone.getCause()).hasMessageContaining(hikariCpsWords);
        assertThat(withFaultHandling).isExactlyInstanceOf(alone.getClass()).hasMessage(alone.getMessage());
        assertThat(withFaultHandling.getCause()).isExactlyInstanceOf(alone.getCause().getClass())
            .hasMessage(alone.getCause().getMessage());
        assertThat(outcomes).allSatisfy(outcome -> assertThat(outcome.connects()).isEmpty());
    }

    /** The data source's other answers: HikariCP's own for a pool configured by URL. */
    @Test
    void theDataSourceAnswersAsHikariCpsOwn() throws Exception {
        List<Class<?>> logWriterAnswers = new ArrayList<>();
        List<Integer> loginTimeouts = new ArrayList<>();
        for (boolean faultHandling : new boolean[] {false, true}) {
            HikariDataSourceFactory factory = new HikariDataSourceFactory();
            factory.setUrl(RecordingDriver.url("same-answers"));
            factory.setMaxSize(1);
            factory.setExtensions(faultHandling ? List.of(new FaultHandlingExtension()) : List.of());
            ManagedHikariDataSource pool = (ManagedHikariDataSource) factory.build(new MetricRegistry(),
                "same-answers");
            try {
                HikariDataSource hikari = pool.unwrap(HikariDataSource.class);
                Throwable logWriter = catchThrowable(hikari::getLogWriter);
                logWriterAnswers.add(logWriter == null ? null : logWriter.getClass());
                loginTimeouts.add(hikari.getLoginTimeout());
            } finally {
                pool.stop();
            }
        }
        assertThat(logWriterAnswers.get(1)).isEqualTo(logWriterAnswers.get(0)).isNotNull();
        assertThat(loginTimeouts.get(1)).isEqualTo(loginTimeouts.get(0));
    }
}
