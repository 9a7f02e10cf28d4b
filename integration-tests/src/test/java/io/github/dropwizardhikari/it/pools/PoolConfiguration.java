package io.github.dropwizardhikari.it.pools;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.example.db.IsValidValidator;
import io.github.dropwizardhikari.faulthandling.FaultHandlingExtension;
import io.github.dropwizardhikari.it.db.DatabaseKind;
import io.github.dropwizardhikari.it.db.TestDatabase;

import java.util.List;

/**
 * The pools every comparison in this project uses, each built through its real Dropwizard factory.
 */
public enum PoolConfiguration {
    /** This bundle's core with its defaults, no extension named: HikariCP's own behaviour. */
    HIKARI("hikari"),
    /** The core with the {@code fault-handling} extension named, {@code failoverEviction: true}. */
    HIKARI_FAULT_HANDLING("hikari-fault-handling"),
    /** Dropwizard's Tomcat {@code DataSourceFactory} with its defaults. */
    TOMCAT_DEFAULT("tomcat-default"),
    /** Tomcat configured to give HikariCP's guarantees as far as it can. */
    TOMCAT_SAFE("tomcat-safe");

    private final String label;

    PoolConfiguration(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /**
     * @param maxSize           the most connections; 1 makes every borrow reuse the same physical connection
     * @param connectionTimeout how long a borrower waits
     */
    public ManagedDataSource build(TestDatabase database, String name, int maxSize, Duration connectionTimeout,
                                   MetricRegistry metrics) {
        return switch (this) {
            case HIKARI, HIKARI_FAULT_HANDLING -> hikariFactory(database, maxSize, connectionTimeout)
                .build(metrics, name);
            case TOMCAT_DEFAULT -> tomcat(database, maxSize, connectionTimeout).build(metrics, name);
            case TOMCAT_SAFE -> safe(tomcat(database, maxSize, connectionTimeout), database).build(metrics, name);
        };
    }

    /** @return whether this is one of this bundle's pools */
    public boolean isHikari() {
        return this == HIKARI || this == HIKARI_FAULT_HANDLING;
    }

    /** This bundle's factory for the pool, with the extensions it names; only for {@link #isHikari()} pools. */
    public HikariDataSourceFactory hikariFactory(TestDatabase database, int maxSize, Duration connectionTimeout) {
        HikariDataSourceFactory factory = hikari(database, maxSize, connectionTimeout);
        factory.setExtensions(extensions());
        return factory;
    }

    /** @return the extensions this pool names, none for Tomcat's */
    public List<PoolExtension> extensions() {
        if (this != HIKARI_FAULT_HANDLING) {
            return List.of();
        }
        FaultHandlingExtension faultHandling = new FaultHandlingExtension();
        faultHandling.setFailoverEviction(true);
        return List.of(faultHandling);
    }

    /** This bundle's core factory, no extension named. */
    public static HikariDataSourceFactory hikari(TestDatabase database, int maxSize, Duration connectionTimeout) {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl(database.url());
        factory.setUser(database.user());
        factory.setPassword(database.password());
        factory.setMaxSize(maxSize);
        factory.setMaxWaitForConnection(connectionTimeout);
        return factory;
    }

    public static DataSourceFactory tomcat(TestDatabase database, int maxSize, Duration connectionTimeout) {
        DataSourceFactory factory = new DataSourceFactory();
        factory.setDriverClass(database.kind().driverClass());
        factory.setUrl(database.url());
        factory.setUser(database.user());
        factory.setPassword(database.password());
        factory.setInitialSize(Math.min(maxSize, 1));
        factory.setMinSize(Math.min(maxSize, 1));
        factory.setMaxSize(maxSize);
        factory.setMaxWaitForConnection(connectionTimeout);
        return factory;
    }

    private static DataSourceFactory safe(DataSourceFactory factory, TestDatabase database) {
        return safe(factory, database.kind() == DatabaseKind.POSTGRES
                ? DataSourceFactory.TransactionIsolation.READ_COMMITTED
                : DataSourceFactory.TransactionIsolation.REPEATABLE_READ,
            database.kind() == DatabaseKind.MARIADB ? database.databaseName() : null);
    }

    /**
     * Tomcat's settings for HikariCP's guarantees.
     *
     * @param isolation the driver's default isolation, which {@code ConnectionState} resets to
     * @param catalog   the driver's default catalog, or {@code null} where the driver has none to reset to
     */
    public static DataSourceFactory safe(DataSourceFactory factory, DataSourceFactory.TransactionIsolation isolation,
                                         String catalog) {
        // ConnectionState resets only the defaults that are configured, so configure the driver's own
        factory.setAutoCommitByDefault(true);
        factory.setReadOnlyByDefault(false);
        factory.setDefaultTransactionIsolation(isolation);
        if (catalog != null) {
            factory.setDefaultCatalog(catalog);
        }
        factory.setRollbackOnReturn(true);
        factory.setCheckConnectionOnBorrow(true);
        factory.setValidationInterval(Duration.milliseconds(500));
        factory.setValidatorClassName(java.util.Optional.of(IsValidValidator.class.getName()));
        factory.setJdbcInterceptors(java.util.Optional.of("ConnectionState;StatementFinalizer"));
        return factory;
    }

    @Override
    public String toString() {
        return label;
    }
}
