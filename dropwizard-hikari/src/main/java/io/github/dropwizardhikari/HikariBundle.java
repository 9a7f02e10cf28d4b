package io.github.dropwizardhikari;

import io.dropwizard.core.Configuration;
import io.dropwizard.core.ConfiguredBundle;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.DatabaseConfiguration;
import io.dropwizard.db.ManagedDataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static java.util.Objects.requireNonNull;

/**
 * Wires a {@link HikariDataSourceFactory} into a Dropwizard application.
 * <pre>{@code
 * bootstrap.addBundle(new HikariBundle<MyConfiguration>() {
 *     public HikariDataSourceFactory getDataSourceFactory(MyConfiguration configuration) {
 *         return configuration.getHikari();
 *     }
 * });
 * }</pre>
 * <p>Every pool built from the factory, by {@code JdbiFactory}, a {@code HibernateBundle} added before or after this
 * one, or the application, registers its health checks ({@code <name>.pool.ConnectivityCheck}) in the application's
 * registry, and the extensions the factory names run once for the application.</p>
 * @param <T> the application's configuration class
 */
public abstract class HikariBundle<T extends Configuration> implements ConfiguredBundle<T>, DatabaseConfiguration<T> {
    public static final String DEFAULT_NAME = "hikari";

    private static final Logger LOGGER = LoggerFactory.getLogger(HikariBundle.class);

    private @Nullable HikariDataSourceFactory factory;
    private @Nullable Environment environment;
    private @Nullable ManagedDataSource dataSource;

    /**
     * @return the factory to wire, or {@code null} when the application is configured without HikariCP (for
     * example, with Dropwizard's own {@code database:} block instead); the bundle then does nothing
     */
    @Override
    public abstract @Nullable HikariDataSourceFactory getDataSourceFactory(T configuration);

    @Override
    public void run(T configuration, Environment environment) {
        this.environment = requireNonNull(environment, "environment");
        this.factory = getDataSourceFactory(configuration);
        if (factory == null) {
            LOGGER.info("No HikariCP data source configured; {} does nothing", getClass().getName());
            return;
        }
        factory.bind(environment);
    }

    /** @return the name of the pool {@link #getDataSource()} builds: the prefix of its metrics and health checks */
    protected String name() {
        return DEFAULT_NAME;
    }

    /**
     * @return a pool for plain JDBC, built on the first call (from {@code Application.run}) and managed
     * @throws IllegalStateException before {@link #run} or when no HikariCP data source is configured
     */
    public synchronized ManagedDataSource getDataSource() {
        if (dataSource == null) {
            Environment env = environment;
            if (env == null) {
                throw new IllegalStateException("getDataSource() is available once the bundle has run");
            }
            if (factory == null) {
                throw new IllegalStateException("no HikariCP data source is configured");
            }
            dataSource = factory.build(env.metrics(), name());
            env.lifecycle().manage(dataSource);
        }
        return dataSource;
    }
}
