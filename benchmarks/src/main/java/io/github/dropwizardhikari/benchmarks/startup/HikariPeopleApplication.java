package io.github.dropwizardhikari.benchmarks.startup;

import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.hibernate.HibernateBundle;
import io.dropwizard.migrations.MigrationsBundle;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;

/**
 * {@link TomcatPeopleApplication} after the type swap: the bundles' overrides return {@code HikariDataSourceFactory}
 * (a covariant override, what a find-and-replace of the type leaves), and {@code HikariBundle} is added. No
 * extension is named.
 */
public class HikariPeopleApplication extends Application<HikariPeopleConfiguration> {
    public static void main(String[] args) throws Exception {
        new HikariPeopleApplication().run(args);
    }

    private final HibernateBundle<HikariPeopleConfiguration> hibernate =
            new HibernateBundle<HikariPeopleConfiguration>(Person.class) {
                @Override
                public HikariDataSourceFactory getDataSourceFactory(HikariPeopleConfiguration configuration) {
                    return configuration.getDataSourceFactory();
                }
            };

    @Override
    public String getName() {
        return "people";
    }

    @Override
    public void initialize(Bootstrap<HikariPeopleConfiguration> bootstrap) {
        bootstrap.addBundle(new MigrationsBundle<HikariPeopleConfiguration>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(HikariPeopleConfiguration configuration) {
                return configuration.getDataSourceFactory();
            }

            // the benchmarks jar also holds the example's migrations.xml
            @Override
            public String getMigrationsFileName() {
                return "people-migrations.xml";
            }
        });
        bootstrap.addBundle(hibernate);
        bootstrap.addBundle(new HikariBundle<HikariPeopleConfiguration>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(HikariPeopleConfiguration configuration) {
                return configuration.getDataSourceFactory();
            }
        });
    }

    @Override
    public void run(HikariPeopleConfiguration configuration, Environment environment) {
        final PersonDAO dao = new PersonDAO(hibernate.getSessionFactory());
        environment.jersey().register(new PeopleResource(dao));
    }
}
