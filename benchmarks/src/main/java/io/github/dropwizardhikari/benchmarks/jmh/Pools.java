package io.github.dropwizardhikari.benchmarks.jmh;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.LockFreeExponentiallyDecayingReservoir;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Reservoir;
import com.codahale.metrics.Timer;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.metrics.IMetricsTracker;
import com.zaxxer.hikari.metrics.dropwizard.CodahaleMetricsTrackerFactory;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.benchmarks.stub.StubDriver;
import io.github.dropwizardhikari.example.db.IsValidValidator;
import io.github.dropwizardhikari.fairborrowing.FairBorrowing;
import io.github.dropwizardhikari.faulthandling.FaultHandlingExtension;
import io.github.dropwizardhikari.holders.HoldersExtension;
import io.github.dropwizardhikari.operations.OperationsExtension;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import javax.sql.DataSource;
import java.util.List;
import java.util.Optional;

/**
 * The pools under test, all with the settings of HikariCP's own benchmark: at most 32 connections, none kept
 * idle, auto-commit off, an 8 second acquisition timeout.
 *
 * <ul>
 *     <li>{@code raw-hikari-no-metrics}: a plain {@link HikariDataSource}, no metrics</li>
 *     <li>{@code raw-hikari}: a plain {@link HikariDataSource} with the same settings as the bundle's, metrics on
 *     a {@code MetricRegistry} included: the baseline for the bundle's own overhead</li>
 *     <li>{@code raw-hikari-noop-tracker}: a plain {@link HikariDataSource} with a metrics tracker that records
 *     nothing: what HikariCP itself does more for any tracker (it reads the clock on every borrow and return), the
 *     floor for every tracker</li>
 *     <li>{@code raw-hikari-bundle-metrics}: a plain {@link HikariDataSource} recording as the bundle's pools do,
 *     through HikariCP's own Codahale tracker with lock-free reservoirs registered first, and nothing else: what
 *     the metrics alone cost</li>
 *     <li>{@code hikari}: this bundle's {@code HikariDataSourceFactory.build()} with its defaults (no extension
 *     named)</li>
 *     <li>{@code hikari-fair-borrowing}: the same with the {@code fair-borrowing} extension named, so the gate's cost
 *     is the difference</li>
 *     <li>{@code hikari-network-timeout} (only when named with {@code -p pool=...}): {@code hikari} with
 *     {@code networkTimeout: 30s}, so the cost of setting the network timeout on each borrow is the difference</li>
 *     <li>{@code hikari-fault-handling} and {@code hikari-operations} (only when named with {@code -p pool=...}):
 *     {@code hikari} with that extension named</li>
 *     <li>{@code hikari-holders}: {@code hikari} with the {@code holders} extension named, so what recording each hold
 *     costs is the difference</li>
 *     <li>{@code tomcat-default}: Dropwizard's {@code DataSourceFactory.build()}</li>
 *     <li>{@code tomcat-safe}: the same with rollback on return, isValid() on borrow at most every 500 ms, and the
 *     ConnectionState and StatementFinalizer interceptors</li>
 * </ul>
 */
@State(Scope.Benchmark)
public class Pools {
    private int maxSize = 32;
    private Duration timeout = Duration.seconds(8);

    @Param({"raw-hikari-no-metrics", "raw-hikari-noop-tracker", "raw-hikari", "raw-hikari-bundle-metrics", "hikari",
        "hikari-fair-borrowing", "hikari-holders", "tomcat-default", "tomcat-safe"})
    public String pool;

    /** {@code stub}: a driver that does nothing; {@code postgres}: the local PostgreSQL. */
    @Param({"stub", "postgres"})
    public String database;

    DataSource dataSource;
    private AutoCloseable closer;

    /**
     * Outside JMH: the pool {@code pool} on {@code database}, with its own size and acquisition timeout.
     */
    public static Pools of(String pool, String database, int maxSize, Duration timeout) {
        Pools pools = new Pools();
        pools.pool = pool;
        pools.database = database;
        pools.maxSize = maxSize;
        pools.timeout = timeout;
        return pools;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    @Setup(Level.Trial)
    public void start() throws Exception {
        StubDriver.register();
        switch (pool) {
            case "raw-hikari-no-metrics" -> raw(rawConfig());
            case "raw-hikari" -> {
                HikariConfig config = rawConfig();
                config.setMetricRegistry(new MetricRegistry());
                raw(config);
            }
            case "raw-hikari-noop-tracker" -> {
                HikariConfig config = rawConfig();
                config.setMetricsTrackerFactory((poolName, stats) -> new IMetricsTracker() { });
                raw(config);
            }
            case "raw-hikari-bundle-metrics" -> {
                HikariConfig config = rawConfig();
                MetricRegistry registry = new MetricRegistry();
                registry.timer("raw-hikari.pool.Wait", () -> new Timer(lockFree()));
                registry.histogram("raw-hikari.pool.Usage", () -> new Histogram(lockFree()));
                registry.histogram("raw-hikari.pool.ConnectionCreation", () -> new Histogram(lockFree()));
                config.setMetricsTrackerFactory(new CodahaleMetricsTrackerFactory(registry));
                raw(config);
            }
            case "hikari" -> managed(hikari().build(new MetricRegistry(), "hikari"));
            case "hikari-network-timeout" -> {
                HikariDataSourceFactory bounded = hikari();
                bounded.setNetworkTimeout(Duration.seconds(30));
                managed(bounded.build(new MetricRegistry(), "hikari"));
            }
            case "hikari-fair-borrowing" -> {
                HikariDataSourceFactory fair = hikari();
                fair.setExtensions(List.of(new FairBorrowing()));
                managed(fair.build(new MetricRegistry(), "hikari"));
            }
            case "hikari-holders" -> {
                HikariDataSourceFactory holders = hikari();
                holders.setExtensions(List.of(new HoldersExtension()));
                managed(holders.build(new MetricRegistry(), "hikari"));
            }
            case "hikari-fault-handling" -> {
                HikariDataSourceFactory faults = hikari();
                faults.setExtensions(List.of(new FaultHandlingExtension()));
                managed(faults.build(new MetricRegistry(), "hikari"));
            }
            case "hikari-operations" -> {
                HikariDataSourceFactory operations = hikari();
                operations.setExtensions(List.of(new OperationsExtension()));
                managed(operations.build(new MetricRegistry(), "hikari"));
            }
            case "tomcat-default" -> managed(tomcat().build(new MetricRegistry(), "tomcat"));
            case "tomcat-safe" -> managed(safe(tomcat()).build(new MetricRegistry(), "tomcat"));
            default -> throw new IllegalArgumentException("unknown pool " + pool);
        }
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        closer.close();
    }

    private static Reservoir lockFree() {
        return LockFreeExponentiallyDecayingReservoir.builder().build();
    }

    private void raw(HikariConfig config) {
        HikariDataSource raw = new HikariDataSource(config);
        dataSource = raw;
        closer = raw;
    }

    private void managed(ManagedDataSource managed) throws Exception {
        managed.start();
        dataSource = managed;
        closer = managed::stop;
    }

    private String url() {
        return database.equals("stub") ? StubDriver.URL
            : System.getProperty("bench.postgres.url", "jdbc:postgresql://127.0.0.1:5432/test");
    }

    private String driverClass() {
        return database.equals("stub") ? StubDriver.class.getName() : "org.postgresql.Driver";
    }

    private static String user() {
        return System.getProperty("bench.postgres.user", "postgres");
    }

    private HikariConfig rawConfig() {
        HikariConfig config = new HikariConfig();
        config.setPoolName("raw-hikari");
        config.setJdbcUrl(url());
        config.setDriverClassName(driverClass());
        config.setUsername(user());
        config.setMaximumPoolSize(maxSize);
        config.setMinimumIdle(0);
        config.setAutoCommit(false);
        config.setConnectionTimeout(timeout.toMilliseconds());
        return config;
    }

    private HikariDataSourceFactory hikari() {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl(url());
        factory.setDriverClass(driverClass());
        factory.setUser(user());
        factory.setMaxSize(maxSize);
        factory.setMinSize(0);
        factory.setAutoCommitByDefault(false);
        factory.setMaxWaitForConnection(timeout);
        return factory;
    }

    private DataSourceFactory tomcat() {
        DataSourceFactory factory = new DataSourceFactory();
        factory.setUrl(url());
        factory.setDriverClass(driverClass());
        factory.setUser(user());
        factory.setMaxSize(maxSize);
        factory.setMinSize(0);
        factory.setInitialSize(0);
        factory.setAutoCommitByDefault(false);
        factory.setMaxWaitForConnection(timeout);
        return factory;
    }

    private static DataSourceFactory safe(DataSourceFactory factory) {
        factory.setRollbackOnReturn(true);
        factory.setCheckConnectionOnBorrow(true);
        factory.setValidationInterval(Duration.milliseconds(500));
        factory.setValidatorClassName(Optional.of(IsValidValidator.class.getName()));
        factory.setJdbcInterceptors(Optional.of("ConnectionState;StatementFinalizer"));
        return factory;
    }
}
