package io.github.dropwizardhikari.tasks;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.pool.ManagedHikariDataSource;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Three pools: {@code alpha} (suspendable) and {@code beta}, started by the lifecycle, and {@code lazy}, built and
 * never used. One {@link HikariBundle}, for {@code alpha}, registers the tasks; they find all three pools.
 */
public class PoolTasksApp extends Application<PoolTasksApp.Config> {
    public static class Config extends Configuration {
        @Valid
        @NotNull
        @JsonProperty
        HikariDataSourceFactory alpha = new HikariDataSourceFactory();

        @Valid
        @NotNull
        @JsonProperty
        HikariDataSourceFactory beta = new HikariDataSourceFactory();

        @Valid
        @NotNull
        @JsonProperty
        HikariDataSourceFactory lazy = new HikariDataSourceFactory();
    }

    static final Map<String, ManagedHikariDataSource> POOLS = new ConcurrentHashMap<>();

    @Override
    public void initialize(Bootstrap<Config> bootstrap) {
        bootstrap.addBundle(new HikariBundle<>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(Config configuration) {
                return configuration.alpha;
            }
        });
    }

    @Override
    public void run(Config configuration, Environment environment) {
        ManagedHikariDataSource alpha = (ManagedHikariDataSource) configuration.alpha.build(environment.metrics(),
            "alpha");
        ManagedHikariDataSource beta = (ManagedHikariDataSource) configuration.beta.build(environment.metrics(),
            "beta");
        ManagedHikariDataSource lazy = (ManagedHikariDataSource) configuration.lazy.build(environment.metrics(),
            "lazy");
        environment.lifecycle().manage(alpha);
        environment.lifecycle().manage(beta);
        POOLS.put("alpha", alpha);
        POOLS.put("beta", beta);
        POOLS.put("lazy", lazy);
    }
}
