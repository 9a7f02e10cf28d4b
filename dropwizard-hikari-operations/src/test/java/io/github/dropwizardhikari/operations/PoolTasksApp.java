package io.github.dropwizardhikari.operations;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Three pools: {@code alpha} (suspendable) and {@code beta}, started by the lifecycle, and {@code lazy}, built and
 * never used. Each comes from a block of its own that names the operations extension, wired by a
 * {@link HikariBundle} of its own: the three blocks share one set of tasks, which finds all three pools.
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
        List<Function<Config, HikariDataSourceFactory>> blocks = List.of(config -> config.alpha,
            config -> config.beta, config -> config.lazy);
        for (Function<Config, HikariDataSourceFactory> block : blocks) {
            bootstrap.addBundle(new HikariBundle<>() {
                @Override
                public HikariDataSourceFactory getDataSourceFactory(Config configuration) {
                    return block.apply(configuration);
                }
            });
        }
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
