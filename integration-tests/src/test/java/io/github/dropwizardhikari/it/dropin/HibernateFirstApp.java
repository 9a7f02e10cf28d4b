package io.github.dropwizardhikari.it.dropin;

import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.PooledDataSourceFactory;
import io.dropwizard.hibernate.HibernateBundle;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;

/**
 * An application that adds {@code HibernateBundle} before {@code HikariBundle}: Hibernate builds its pool in its
 * own {@code run()}, before HikariBundle's runs.
 */
public class HibernateFirstApp extends Application<DropInApp.Config> {
    private final HibernateBundle<DropInApp.Config> hibernate = new HibernateBundle<>(Note.class) {
        @Override
        public PooledDataSourceFactory getDataSourceFactory(DropInApp.Config configuration) {
            return configuration.hikari;
        }
    };

    @Override
    public void initialize(Bootstrap<DropInApp.Config> bootstrap) {
        bootstrap.addBundle(hibernate);
        bootstrap.addBundle(new HikariBundle<>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(DropInApp.Config configuration) {
                return configuration.hikari;
            }
        });
    }

    @Override
    public void run(DropInApp.Config configuration, Environment environment) {
        environment.jersey().register(new DropInApp.NoteResource(new DropInApp.NoteDao(hibernate.getSessionFactory())));
    }
}
