package io.github.dropwizardhikari.example.readme;

import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jdbi3.JdbiFactory;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.admission.PoolAdmissionBundle;
import org.jdbi.v3.core.Jdbi;

public class AdmissionApplication extends Application<AppConfiguration> {
    @Override
    public void initialize(Bootstrap<AppConfiguration> bootstrap) {
        bootstrap.addBundle(new HikariBundle<>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(AppConfiguration configuration) {
                return configuration.getDataSourceFactory();
            }
        });
        bootstrap.addBundle(new PoolAdmissionBundle<>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(AppConfiguration configuration) {
                return configuration.getDataSourceFactory();
            }

            @Override
            protected String name() {
                return "db"; // the name the application gives its pool: prefix of the admission metrics
            }
        });
    }

    @Override
    public void run(AppConfiguration configuration, Environment environment) {
        Jdbi jdbi = new JdbiFactory().build(environment, configuration.getDataSourceFactory(), "db");
        // register the resources that use jdbi, as with Dropwizard's own pool
    }
}
