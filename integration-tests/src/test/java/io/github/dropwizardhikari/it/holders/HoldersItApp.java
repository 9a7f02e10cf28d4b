package io.github.dropwizardhikari.it.holders;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.PooledDataSourceFactory;
import io.dropwizard.hibernate.HibernateBundle;
import io.dropwizard.hibernate.UnitOfWork;
import io.dropwizard.jdbi3.JdbiFactory;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.it.dropin.Note;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.hibernate.SessionFactory;
import org.jdbi.v3.core.Jdbi;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

/**
 * One PostgreSQL pool used by three clients: {@code GET /reports/{id}} holds its Jdbi connection for 2 s (a slow
 * query), {@code GET /orders} for 5 ms; {@code GET /notes/{id}} runs in a Hibernate {@code @UnitOfWork};
 * {@code GET /jdbc/{id}} borrows from {@link HikariBundle#getDataSource()}; {@code GET /leak/{id}} holds its
 * connection for {@code 3.5 s}, past a 2 s leak threshold.
 */
public class HoldersItApp extends Application<HoldersItApp.Config> {
    static final long SLOW_MILLIS = 2_000;
    static final long FAST_MILLIS = 5;
    static final long LEAK_MILLIS = 3_500;

    public static class Config extends Configuration {
        @Valid
        @NotNull
        @JsonProperty
        HikariDataSourceFactory hikari = new HikariDataSourceFactory();
    }

    private final HikariBundle<Config> bundle = new HikariBundle<>() {
        @Override
        public HikariDataSourceFactory getDataSourceFactory(Config configuration) {
            return configuration.hikari;
        }
    };

    private final HibernateBundle<Config> hibernate = new HibernateBundle<>(Note.class) {
        @Override
        public PooledDataSourceFactory getDataSourceFactory(Config configuration) {
            return configuration.hikari;
        }
    };

    @Override
    public void initialize(Bootstrap<Config> bootstrap) {
        bootstrap.addBundle(hibernate);
        bootstrap.addBundle(bundle);
    }

    @Override
    public void run(Config configuration, Environment environment) {
        Jdbi jdbi = new JdbiFactory().build(environment, configuration.hikari, "postgres");
        environment.jersey().register(new Reports(jdbi));
        environment.jersey().register(new Orders(jdbi));
        environment.jersey().register(new Notes(hibernate.getSessionFactory()));
        environment.jersey().register(new PlainJdbc(bundle));
        environment.jersey().register(new Leaks(bundle));
    }

    private static String sleep(Jdbi jdbi, long millis) {
        return jdbi.withHandle(handle -> handle.createQuery("SELECT pg_sleep(:seconds)::text")
            .bind("seconds", millis / 1_000.0).mapTo(String.class).one());
    }

    @Path("/reports")
    @Produces(MediaType.TEXT_PLAIN)
    public static class Reports {
        private final Jdbi jdbi;

        Reports(Jdbi jdbi) {
            this.jdbi = jdbi;
        }

        @GET
        @Path("{id}")
        public String report(@PathParam("id") long id) {
            return sleep(jdbi, SLOW_MILLIS);
        }
    }

    @Path("/orders")
    @Produces(MediaType.TEXT_PLAIN)
    public static class Orders {
        private final Jdbi jdbi;

        Orders(Jdbi jdbi) {
            this.jdbi = jdbi;
        }

        @GET
        public String orders() {
            return sleep(jdbi, FAST_MILLIS);
        }
    }

    @Path("/notes/{id}")
    @Produces(MediaType.TEXT_PLAIN)
    public static class Notes {
        private final SessionFactory sessions;

        Notes(SessionFactory sessions) {
            this.sessions = sessions;
        }

        @GET
        @UnitOfWork
        public String note(@PathParam("id") long id) {
            return String.valueOf(sessions.getCurrentSession().createNativeQuery("SELECT 1", Integer.class)
                .getSingleResult());
        }
    }

    @Path("/jdbc/{id}")
    @Produces(MediaType.TEXT_PLAIN)
    public static class PlainJdbc {
        private final HikariBundle<Config> bundle;

        PlainJdbc(HikariBundle<Config> bundle) {
            this.bundle = bundle;
        }

        @GET
        public String jdbc(@PathParam("id") long id) throws Exception {
            try (Connection connection = bundle.getDataSource().getConnection();
                 Statement statement = connection.createStatement();
                 ResultSet result = statement.executeQuery("SELECT 1")) {
                result.next();
                return result.getString(1);
            }
        }
    }

    @Path("/leak/{id}")
    @Produces(MediaType.TEXT_PLAIN)
    public static class Leaks {
        private final HikariBundle<Config> bundle;

        Leaks(HikariBundle<Config> bundle) {
            this.bundle = bundle;
        }

        @GET
        public String leak(@PathParam("id") long id) throws Exception {
            try (Connection ignored = bundle.getDataSource().getConnection()) {
                TimeUnit.MILLISECONDS.sleep(LEAK_MILLIS);
            }
            return "returned late";
        }
    }
}
