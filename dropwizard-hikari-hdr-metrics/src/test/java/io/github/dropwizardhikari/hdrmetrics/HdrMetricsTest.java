package io.github.dropwizardhikari.hdrmetrics;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Timer;
import com.codahale.metrics.health.HealthCheck;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.configuration.ResourceConfigurationSourceProvider;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * HikariCP's pool metrics with the extension named: HikariCP's names and types, every value of the window in the
 * percentiles, and the figures users alert on as HikariCP records them.
 */
class HdrMetricsTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, an unreachable database and a borrow that times out."
            + " WARN and ERROR lines in this log are expected.");
    }

    static final class HikariConfiguration {
        @Valid
        @NotNull
        @JsonProperty
        HikariDataSourceFactory hikari;
    }

    private static final ConfigurationFactory<HikariConfiguration> YAML =
        new DefaultConfigurationFactoryFactory<HikariConfiguration>().create(HikariConfiguration.class,
            Validators.newValidator(), Jackson.newObjectMapper(), "dw");

    private final MetricRegistry metrics = new MetricRegistry();
    private final List<ManagedHikariDataSource> built = new ArrayList<>();

    @AfterEach
    void stopAll() {
        built.forEach(ManagedHikariDataSource::stop);
    }

    private static HikariDataSourceFactory parse(String fixture) throws Exception {
        return YAML.build(new ResourceConfigurationSourceProvider(), "yaml/" + fixture).hikari;
    }

    private static HikariDataSourceFactory factory(String url) {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl(url);
        factory.setUser("sa");
        factory.setMaxSize(2);
        factory.setMaxWaitForConnection(Duration.milliseconds(500));
        factory.setExtensions(List.of(new HdrMetricsExtension()));
        return factory;
    }

    private ManagedHikariDataSource build(String name, String url) {
        ManagedHikariDataSource dataSource = (ManagedHikariDataSource) factory(url).build(metrics, name);
        built.add(dataSource);
        return dataSource;
    }

    private ManagedHikariDataSource build(String name) {
        return build(name, "jdbc:h2:mem:hdr-" + name + ";DB_CLOSE_DELAY=-1");
    }

    @Test
    void theWindowIsAMinuteUnlessStated() throws Exception {
        HdrMetricsExtension minimal = (HdrMetricsExtension) parse("hdr_minimal.yml").getExtensions().get(0);
        HdrMetricsExtension full = (HdrMetricsExtension) parse("hdr_full.yml").getExtensions().get(0);

        assertThat(minimal.getWindow()).isEqualTo(Duration.minutes(1));
        assertThat(full.getWindow()).isEqualTo(Duration.minutes(5));
        assertThatThrownBy(() -> parse("invalid_hdr_window.yml"))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining("window");
    }

    @Test
    void hikarisTimerAndHistogramsKeepTheirNamesAndTypesOnAWindowedHdrHistogram() throws Exception {
        ManagedHikariDataSource dataSource = build("windowed");
        try (Connection connection = dataSource.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }

        Timer wait = metrics.getTimers().get("windowed.pool.Wait");
        Histogram usage = metrics.getHistograms().get("windowed.pool.Usage");
        Histogram creation = metrics.getHistograms().get("windowed.pool.ConnectionCreation");
        // HikariCP recorded into the extension's metrics: one borrow, one return
        assertThat(wait.getCount()).isEqualTo(1);
        assertThat(usage.getCount()).isEqualTo(1);
        for (Metric metric : List.of(wait, usage, creation)) {
            assertThat(reservoirOf(metric)).isInstanceOf(WindowedHdrReservoir.class);
        }
        assertThat(metrics.getMeters()).containsKey("windowed.pool.ConnectionTimeoutRate");
        assertThat(metrics.getNames()).filteredOn(name -> name.startsWith("windowed.pool.")).hasSize(10);
    }

    @Test
    void withoutTheExtensionTheReservoirsAreTheCores() throws Exception {
        HikariDataSourceFactory plain = factory("jdbc:h2:mem:hdr-plain;DB_CLOSE_DELAY=-1");
        plain.setExtensions(List.of());
        ManagedHikariDataSource dataSource = (ManagedHikariDataSource) plain.build(metrics, "plain");
        built.add(dataSource);
        dataSource.start();

        assertThat(reservoirOf(metrics.getTimers().get("plain.pool.Wait")))
            .isNotInstanceOf(WindowedHdrReservoir.class);
    }

    @Test
    void stopRemovesThemSoThePoolCanBeBuiltAgain() throws Exception {
        build("again").start();
        built.get(0).stop();
        assertThat(metrics.getNames()).noneMatch(name -> name.startsWith("again."));

        ManagedHikariDataSource second = build("again");
        try (Connection connection = second.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }
        assertThat(reservoirOf(metrics.getTimers().get("again.pool.Wait")))
            .isInstanceOf(WindowedHdrReservoir.class);
    }

    @Test
    void aSecondRunningPoolOfTheSameNameIsStillRefused() throws Exception {
        build("twin").start();
        Timer first = metrics.getTimers().get("twin.pool.Wait");
        ManagedHikariDataSource twin = build("twin");

        assertThatThrownBy(twin::start)
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("a pool named 'twin' is already registered");
        // the first pool's metrics are untouched
        assertThat(metrics.getNames()).filteredOn(name -> name.startsWith("twin.pool.")).hasSize(10);
        assertThat(metrics.getTimers().get("twin.pool.Wait")).isSameAs(first);
    }

    @Test
    void aPoolThatFailsToStartLeavesNothingBehind() throws Exception {
        try (Socket refusing = boundWithoutListening()) {
            ManagedHikariDataSource unreachable = build("down", "jdbc:h2:tcp://127.0.0.1:" + refusing.getLocalPort()
                + "/mem:none");

            assertThatThrownBy(unreachable::start).isInstanceOf(SQLException.class);
            assertThat(metrics.getNames()).noneMatch(name -> name.startsWith("down."));
        }
    }

    // a port below the ephemeral range held by a socket that never listens: connections to it are refused, and no
    // other process can listen on it while the test holds it
    private static Socket boundWithoutListening() throws IOException {
        int first = ThreadLocalRandom.current().nextInt(20_000, 30_000);
        for (int port = first; port < 32_768; port++) {
            Socket socket = new Socket();
            try {
                socket.bind(new InetSocketAddress("127.0.0.1", port));
                return socket;
            } catch (IOException taken) {
                socket.close();
            }
        }
        throw new IllegalStateException("no free port from " + first + " to 32767");
    }

    /**
     * One connection held while a second borrower waits and times out: {@code PendingConnections} counts it while
     * it waits, {@code ConnectionTimeoutRate} counts the failure, {@code Wait} has the whole wait of both borrows,
     * and the health checks, which read {@code Wait}, answer as they would without the extension.
     */
    @Test
    void waitPendingFailedBorrowsAndHealthChecksStayTrue() throws Exception {
        HikariDataSourceFactory factory = factory("jdbc:h2:mem:hdr-figures;DB_CLOSE_DELAY=-1");
        factory.setMaxSize(1);
        factory.setMaxWaitForConnection(Duration.seconds(3));
        factory.setHealthCheckProperties(Map.of("expected99thPercentileMs", "1000"));
        Environment environment = new Environment("hdr-figures");
        HikariBundle<Configuration> bundle = new HikariBundle<>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(Configuration configuration) {
                return factory;
            }
        };
        bundle.run(new Configuration(), environment);
        ManagedHikariDataSource dataSource = (ManagedHikariDataSource) bundle.getDataSource();
        built.add(dataSource);
        MetricRegistry registry = environment.metrics();

        CompletableFuture<Boolean> timedOut;
        try (Connection held = dataSource.getConnection()) {
            timedOut = CompletableFuture.supplyAsync(() -> {
                try (Connection connection = dataSource.getConnection()) {
                    return false;
                } catch (SQLException e) {
                    return true;
                }
            });
            // HikariCP refreshes its gauges at most once a second
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (!Integer.valueOf(1).equals(registry.getGauges().get("hikari.pool.PendingConnections").getValue())
                && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(20);
            }
            assertThat(registry.getGauges().get("hikari.pool.PendingConnections").getValue()).isEqualTo(1);
            assertThat(timedOut.get(10, TimeUnit.SECONDS)).as("the waiting borrower timed out").isTrue();
        }
        assertThat(registry.getMeters().get("hikari.pool.ConnectionTimeoutRate").getCount()).isEqualTo(1);
        Timer wait = registry.getTimers().get("hikari.pool.Wait");
        assertThat(reservoirOf(wait)).isInstanceOf(WindowedHdrReservoir.class);
        // HikariCP 7.1 times a borrow that timed out too: both borrows, the failed one with its 3 s
        assertThat(wait.getCount()).isEqualTo(2);
        assertThat(TimeUnit.NANOSECONDS.toMillis(wait.getSnapshot().getMax())).as("the longest wait, in ms")
            .isGreaterThanOrEqualTo(2_900);
        assertThat(environment.healthChecks().runHealthCheck("hikari.pool.ConnectivityCheck").isHealthy()).isTrue();
        // one wait of 3 s in two: the 99th percentile, counted exactly, is over the 1 s threshold
        HealthCheck.Result percentile = environment.healthChecks().runHealthCheck("hikari.pool.Connection99Percent");
        assertThat(percentile.isHealthy()).isFalse();
        assertThat(percentile.getMessage()).startsWith("99th percentile connection wait time of ");
    }

    // Metrics exposes no getter for a reservoir: read the field, only to check which reservoir it is
    private static Reservoir reservoirOf(Metric metric) throws ReflectiveOperationException {
        Object histogram = metric;
        if (metric instanceof Timer) {
            histogram = field(Timer.class, "histogram").get(metric);
        }
        return (Reservoir) field(Histogram.class, "reservoir").get(histogram);
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }
}
