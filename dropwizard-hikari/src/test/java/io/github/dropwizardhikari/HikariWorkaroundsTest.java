package io.github.dropwizardhikari;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheckRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.SQLExceptionOverride;
import com.zaxxer.hikari.metrics.IMetricsTracker;
import com.zaxxer.hikari.util.Credentials;
import org.h2.jdbc.JdbcConnection;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.io.PrintWriter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * HikariCP bugs the library works around, each shown still present in the HikariCP on the class path, each with the
 * upstream issue or pull request of HikariCP's that reports it, or a word that none was found (searched by its
 * symptom among brettwooldridge/HikariCP's issues and pull requests). When one of these fails after an upgrade,
 * HikariCP has fixed the bug: remove the workaround it names, then this test.
 */
class HikariWorkaroundsTest {

    /**
     * In HikariCP 7.1.0 {@code setCredentialsProviderClassName} also writes the exception override's class name, so
     * {@code HikariDataSourceFactory.toHikariConfig} sets the exception override after the credentials provider.
     * Upstream: brettwooldridge/HikariCP pull request 2405 (open; 2409 was its duplicate).
     */
    @Test
    void hikariCp710CredentialsProviderSetterOverwritesTheExceptionOverridesClassName() {
        HikariConfig config = new HikariConfig();
        config.setExceptionOverrideClassName(NeverEvict.class.getName());

        config.setCredentialsProviderClassName(FixedCredentials.class.getName());

        assertThat(config.getExceptionOverrideClassName())
            .as("HikariCP's credentials-provider setter left the exception override's class name alone: the bug is "
                + "fixed, and the setter order in HikariDataSourceFactory.toHikariConfig no longer matters")
            .isEqualTo(FixedCredentials.class.getName());
        // only the name: the override itself is still the one set
        assertThat(config.getExceptionOverride()).isInstanceOf(NeverEvict.class);
        assertThat(config.getCredentialsProvider()).isInstanceOf(FixedCredentials.class);
    }

    /**
     * HikariCP 7.1 registers its metrics after it has opened the first connection, and when that fails (a metric of
     * the same name exists) its constructor throws without closing the connection, so
     * {@code ManagedHikariDataSource} refuses a duplicate pool name before HikariCP opens anything. Upstream: no
     * issue reports the connection left open; issue 676 (closed) asked HikariCP to accept a metric that exists, and
     * issue 233 (fixed) was the same kind of leak of the pool's threads.
     */
    @Test
    void hikariCp71LeavesItsFirstConnectionOpenWhenAMetricOfTheSameNameExists() throws Exception {
        RecordingDataSource database = new RecordingDataSource("duplicate-metric");
        MetricRegistry metrics = new MetricRegistry();
        metrics.register(MetricRegistry.name("duplicate", "pool", "Wait"), (Gauge<Integer>) () -> 0);
        HikariConfig config = config("duplicate", database);
        config.setMetricRegistry(metrics);

        assertThatIllegalArgumentException().isThrownBy(() -> new HikariDataSource(config));

        assertThat(database.opened).as("connections HikariCP opened before it registered its metrics").hasSize(1);
        Connection first = database.opened.get(0);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (!first.isClosed() && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(20);
            }
            assertThat(first.isClosed())
                .as("HikariCP closed the connection it opened before failing on a duplicate metric: the bug is "
                    + "fixed, and ManagedHikariDataSource.refuseDuplicateMetrics can go")
                .isFalse();
        } finally {
            first.close();
        }
    }

    /**
     * HikariCP 7.1 puts back a catalog a borrower changed with {@code setCatalog} only when {@code catalog} is
     * configured, so {@code DefaultCatalog} configures the one a MariaDB or MySQL connection starts in. Upstream:
     * issue 456 asked for exactly that (MySQL refuses a null catalog, issues 410 and 500); no issue asks HikariCP to
     * capture the catalog a connection starts in.
     */
    @Test
    void hikariCp71LeavesAChangedCatalogToTheNextBorrowerWhenNoneIsConfigured() throws Exception {
        HikariConfig config = config("catalog", new CatalogKeepingDataSource("catalog"));
        try (HikariDataSource pool = new HikariDataSource(config)) {
            String initial;
            try (Connection first = pool.getConnection()) {
                initial = first.getCatalog();
                first.setCatalog("OTHER");
            }
            try (Connection next = pool.getConnection()) {
                assertThat(next.getCatalog())
                    .as("HikariCP put back the catalog the connection started in (%s): the bug is fixed, and "
                        + "DefaultCatalog can go", initial)
                    .isEqualTo("OTHER");
            }
        }
    }

    /**
     * HikariCP 7.1's {@code evictConnection} ignores, without a word, a connection of a class not its own, so a
     * data source that hands out its own connections must evict through the connection it wraps (none does today:
     * every connection handed out is HikariCP's). Upstream: a reply in issue 870 describes it; no issue asks for an
     * error or a warning.
     */
    @Test
    void hikariCp71IgnoresTheEvictionOfAConnectionItDidNotHandOut() throws Exception {
        HikariConfig config = config("evict", new RecordingDataSource("evict"));
        try (HikariDataSource pool = new HikariDataSource(config)) {
            Connection physical;
            try (Connection borrowed = pool.getConnection()) {
                physical = borrowed.unwrap(JdbcConnection.class);
                pool.evictConnection(wrapped(borrowed));
            }
            try (Connection next = pool.getConnection()) {
                assertThat(next.unwrap(JdbcConnection.class))
                    .as("HikariCP evicted a connection through a wrapper: the bug is fixed, and "
                        + "a wrapping data source need not unwrap before it evicts")
                    .isSameAs(physical);
                pool.evictConnection(next);
            }
            try (Connection replacement = pool.getConnection()) {
                assertThat(replacement.unwrap(JdbcConnection.class)).as("evicted without a wrapper")
                    .isNotSameAs(physical);
            }
        }
    }

    /**
     * HikariCP 7.1 adds its 99th-percentile health check only when it records into a metric registry itself, not
     * with a metrics tracker factory, so {@code PoolHealthChecks} adds the check for the bundle's tracker. Upstream:
     * no issue found; issue 1234 (open) is about the same method reading {@code getMetricRegistry()} alone.
     */
    @Test
    void hikariCp71AddsNo99thPercentileCheckWithATrackerFactory() throws Exception {
        HikariConfig config = config("percentile", new RecordingDataSource("percentile"));
        config.setMetricsTrackerFactory((poolName, stats) -> new IMetricsTracker() {
        });
        HealthCheckRegistry checks = new HealthCheckRegistry();
        config.setHealthCheckRegistry(checks);
        config.addHealthCheckProperty(PoolHealthChecks.PERCENTILE_PROPERTY, "10");
        try (HikariDataSource pool = new HikariDataSource(config)) {
            assertThat(checks.getNames()).as("HikariCP's checks").contains("percentile.pool.ConnectivityCheck");
            assertThat(checks.getNames())
                .as("HikariCP added its 99th-percentile check with a tracker factory: the gap is closed, and "
                    + "PoolHealthChecks need not add its own")
                .doesNotContain("percentile" + PoolHealthChecks.PERCENTILE_CHECK);
        }
    }

    private static HikariConfig config(String name, DataSource database) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setDataSource(database);
        config.setMaximumPoolSize(1);
        return config;
    }

    /** A connection of a class not HikariCP's, as a wrapping data source would hand out. */
    private static Connection wrapped(Connection connection) {
        return (Connection) Proxy.newProxyInstance(HikariWorkaroundsTest.class.getClassLoader(),
            new Class<?>[] {Connection.class}, (proxy, method, arguments) -> invoke(connection, method, arguments));
    }

    private static Object invoke(Object target, Method method, Object[] arguments) throws Throwable {
        try {
            return method.invoke(target, arguments);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** Real H2 connections, each kept for the test to look at. */
    static class RecordingDataSource implements DataSource {
        final List<Connection> opened = new CopyOnWriteArrayList<>();
        private final JdbcDataSource h2 = new JdbcDataSource();

        RecordingDataSource(String database) {
            h2.setURL("jdbc:h2:mem:workaround-" + database + ";DB_CLOSE_DELAY=-1");
        }

        /** @return the connection the pool gets for {@code opened} */
        Connection handOut(Connection opened) throws SQLException {
            return opened;
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection connection = h2.getConnection();
            opened.add(connection);
            return handOut(connection);
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return h2.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) {
            h2.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) {
            h2.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() {
            return h2.getLoginTimeout();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
            return false;
        }
    }

    /** H2 connections that keep the catalog they are given, as MariaDB's and MySQL's do (H2's ignore it). */
    static final class CatalogKeepingDataSource extends RecordingDataSource {
        CatalogKeepingDataSource(String database) {
            super(database);
        }

        @Override
        Connection handOut(Connection h2) throws SQLException {
            String[] catalog = {h2.getCatalog()};
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, arguments) -> switch (method.getName()) {
                    case "getCatalog" -> catalog[0];
                    case "setCatalog" -> {
                        catalog[0] = (String) arguments[0];
                        yield null;
                    }
                    default -> invoke(h2, method, arguments);
                });
        }
    }

    public static final class NeverEvict implements SQLExceptionOverride {
    }

    public static final class FixedCredentials implements HikariCredentialsProvider {
        @Override
        public Credentials getCredentials() {
            return Credentials.of("user", "password");
        }
    }
}
