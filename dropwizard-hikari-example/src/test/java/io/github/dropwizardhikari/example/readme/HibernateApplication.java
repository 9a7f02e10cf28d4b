package io.github.dropwizardhikari.example.readme;

import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.hibernate.HibernateBundle;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import org.hibernate.SessionFactory;

public class HibernateApplication extends Application<AppConfiguration> {
    // the bundle names its pool: "hibernate" (metrics hibernate.pool.*), unless it overrides name()
    private final HibernateBundle<AppConfiguration> hibernate = new HibernateBundle<>(Person.class) {
        @Override
        public HikariDataSourceFactory getDataSourceFactory(AppConfiguration configuration) {
            return configuration.getDataSourceFactory();
        }
    };

    @Override
    public void initialize(Bootstrap<AppConfiguration> bootstrap) {
        // in either order: the pool HibernateBundle builds gets HikariCP's health checks too
        bootstrap.addBundle(new HikariBundle<>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(AppConfiguration configuration) {
                return configuration.getDataSourceFactory();
            }
        });
        bootstrap.addBundle(hibernate);
    }

    @Override
    public void run(AppConfiguration configuration, Environment environment) {
        SessionFactory sessionFactory = hibernate.getSessionFactory();
        // your DAOs and @UnitOfWork resources take it, as with Dropwizard's own pool
    }
}
