package io.github.dropwizardhikari.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;

import java.util.Optional;

/**
 * How a pool meets an outage: it connects through a {@link RetryingDataSource}, filling within one retry interval of
 * the database's return, and borrowers fail fast once waiting cannot help ({@link DatabaseOutage}). A pool
 * configured by {@code dataSourceClassName}, or with a retry interval of 0, connects as HikariCP alone does.
 */
public final class OutageRecovery implements AutoCloseable {
    private final DatabaseOutage outage;
    @Nullable
    private final DriverConnector connector;
    @Nullable
    private final RetryingDataSource retrying;
    @Nullable
    private DatabaseProbe probe;

    private OutageRecovery(DatabaseOutage outage, @Nullable DriverConnector connector,
                           @Nullable RetryingDataSource retrying) {
        this.outage = outage;
        this.connector = connector;
        this.retrying = retrying;
    }

    /**
     * Hands HikariCP the retrying data source, before the pool is built.
     *
     * @param retryIntervalMillis between two connection attempts while the database is down; 0 for HikariCP's own
     *                            back-off
     */
    public static OutageRecovery prepare(HikariConfig config, long retryIntervalMillis) {
        DatabaseOutage outage = new DatabaseOutage(config.getPoolName(), retryIntervalMillis);
        if (config.getDataSource() instanceof RetryingDataSource) {
            // a start that failed left its own behind
            config.setDataSource(null);
        }
        String url = config.getJdbcUrl();
        if (url == null || config.getDataSource() != null || config.getDataSourceClassName() != null) {
            return new OutageRecovery(outage, null, null);
        }
        DriverConnector connector = new DriverConnector(url, config.getDriverClassName(),
            config.getDataSourceProperties());
        if (retryIntervalMillis <= 0) {
            return new OutageRecovery(outage, connector, null);
        }
        RetryingDataSource dataSource = new RetryingDataSource(connector, outage, retryIntervalMillis);
        config.setDataSource(dataSource);
        return new OutageRecovery(outage, connector, dataSource);
    }

    /**
     * From now on connection attempts retry while the pool is open.
     *
     * @param whenBackUp runs each time the database accepts connections again after failed attempts
     */
    public void started(HikariDataSource pool, Runnable whenBackUp) {
        outage.started(pool::getConnection, whenBackUp);
        if (retrying != null) {
            retrying.retryWhile(() -> !pool.isClosed());
        }
        if (connector != null) {
            probe = new DatabaseProbe(pool, connector);
        }
    }

    public DatabaseOutage outage() {
        return outage;
    }

    /** @return a probe that connects outside the pool, when the pool is configured by URL */
    public Optional<DatabaseProbe> probe() {
        return Optional.ofNullable(probe);
    }

    @Override
    public void close() {
        outage.close();
        if (probe != null) {
            probe.close();
        }
    }
}
