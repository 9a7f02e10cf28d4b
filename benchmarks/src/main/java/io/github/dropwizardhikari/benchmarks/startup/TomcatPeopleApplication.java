package io.github.dropwizardhikari.benchmarks.startup;

import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.hibernate.HibernateBundle;
import io.dropwizard.migrations.MigrationsBundle;

/**
 * A Dropwizard application with Hibernate and Migrations as Dropwizard's documentation writes one, on Dropwizard's
 * own pool: the reference the start-up benchmark compares {@link HikariPeopleApplication} with.
 */
public class TomcatPeopleApplication extends Application<TomcatPeopleConfiguration> {
    public static void main(String[] args) throws Exception {
        new TomcatPeopleApplication().run(args);
    }

    private final HibernateBundle<TomcatPeopleConfiguration> hibernate =
            new HibernateBundle<TomcatPeopleConfiguration>(Person.class) {
                @Override
                public DataSourceFactory getDataSourceFactory(TomcatPeopleConfiguration configuration) {
                    return configuration.getDataSourceFactory();
                }
            };

    @Override
    public String getName() {
        return "people";
    }

    @Override
    public void initialize(Bootstrap<TomcatPeopleConfiguration> bootstrap) {
        bootstrap.addBundle(new MigrationsBundle<TomcatPeopleConfiguration>() {
            @Override
            public DataSourceFactory getDataSourceFactory(TomcatPeopleConfiguration configuration) {
                return configuration.getDataSourceFactory();
            }

            // the benchmarks jar also holds the example's migrations.xml
            @Override
            public String getMigrationsFileName() {
                return "people-migrations.xml";
            }
        });
        bootstrap.addBundle(hibernate);
    }

    @Override
    public void run(TomcatPeopleConfiguration configuration, Environment environment) {
        final PersonDAO dao = new PersonDAO(hibernate.getSessionFactory());
        environment.jersey().register(new PeopleResource(dao));
    }
}
