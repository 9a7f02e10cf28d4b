package io.github.dropwizardhikari.it.holders;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.MetricRegistryListener;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.db.PooledDataSourceFactory;
import io.dropwizard.migrations.MigrationsBundle;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@link HoldersItApp}'s {@code hikari:} block with Dropwizard's {@code MigrationsBundle} on it, for its commands
 * ({@code db migrate}, {@code db status}, ...). {@code MigrationsBundle} builds its pool with a {@code MetricRegistry}
 * of its own, which no reporter reads and the pool empties when it stops; the bundle is handed the block through a
 * factory that keeps that registry and the counters registered in it, so a test can read what the extension
 * counted for the command.
 */
public class HoldersCommandsApp extends Application<HoldersItApp.Config> {
    final List<MetricRegistry> commandRegistries = new CopyOnWriteArrayList<>();
    final Map<String, Counter> commandCounters = new ConcurrentHashMap<>();

    @Override
    public void initialize(Bootstrap<HoldersItApp.Config> bootstrap) {
        bootstrap.addBundle(new HikariBundle<>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(HoldersItApp.Config configuration) {
                return configuration.hikari;
            }
        });
        bootstrap.addBundle(new MigrationsBundle<>() {
            @Override
            public PooledDataSourceFactory getDataSourceFactory(HoldersItApp.Config configuration) {
                return new RegistryKeeping(configuration.hikari);
            }

            @Override
            public String getMigrationsFileName() {
                return "holders-migrations.xml";
            }
        });
    }

    @Override
    public void run(HoldersItApp.Config configuration, Environment environment) {
        // only its commands are run
    }

    @Override
    protected void onFatalError(Throwable t) {
        // a failed command fails the test instead of exiting the JVM
        throw new IllegalStateException("command failed", t);
    }

    /** The block as it is, but for the registry its pools are built with, which it keeps. */
    private final class RegistryKeeping implements PooledDataSourceFactory {
        private final HikariDataSourceFactory block;

        RegistryKeeping(HikariDataSourceFactory block) {
            this.block = block;
        }

        @Override
        public ManagedDataSource build(MetricRegistry metrics, String name) {
            commandRegistries.add(metrics);
            metrics.addListener(new MetricRegistryListener.Base() {
                @Override
                public void onCounterAdded(String counterName, Counter counter) {
                    commandCounters.put(counterName, counter);
                }
            });
            return block.build(metrics, name);
        }

        @Override
        public boolean isAutoCommentsEnabled() {
            return block.isAutoCommentsEnabled();
        }

        @Override
        public Map<String, String> getProperties() {
            return block.getProperties();
        }

        @Override
        public Optional<Duration> getValidationQueryTimeout() {
            return block.getValidationQueryTimeout();
        }

        @Override
        public Optional<String> getValidationQuery() {
            return block.getValidationQuery();
        }

        @Override
        public String getDriverClass() {
            return block.getDriverClass();
        }

        @Override
        public String getUrl() {
            return block.getUrl();
        }

        @Override
        public void asSingleConnectionPool() {
            block.asSingleConnectionPool();
        }
    }
}
