package io.github.dropwizardhikari.example.readme;

import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jdbi3.JdbiFactory;
import io.dropwizard.migrations.MigrationsBundle;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import org.jdbi.v3.core.Jdbi;

public class JdbiApplication extends Application<AppConfiguration> {
    @Override
    public void initialize(Bootstrap<AppConfiguration> bootstrap) {
        // HikariCP's health checks for every pool built from the block, and the extensions it names
        bootstrap.addBundle(new HikariBundle<>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(AppConfiguration configuration) {
                return configuration.getDataSourceFactory();
            }
        });
        // db migrate, db status, ...: as before; the override's type was DataSourceFactory
        bootstrap.addBundle(new MigrationsBundle<>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(AppConfiguration configuration) {
                return configuration.getDataSourceFactory();
            }
        });
    }

    @Override
    public void run(AppConfiguration configuration, Environment environment) {
        // a pool named "db": metrics db.pool.*, health checks db and db.pool.ConnectivityCheck
        Jdbi jdbi = new JdbiFactory().build(environment, configuration.getDataSourceFactory(), "db");
        // register the resources that use jdbi, as with Dropwizard's own pool
    }
}
