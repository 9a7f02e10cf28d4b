package io.github.dropwizardhikari.it.dropin;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.db.PooledDataSourceFactory;
import io.dropwizard.hibernate.AbstractDAO;
import io.dropwizard.hibernate.HibernateBundle;
import io.dropwizard.hibernate.UnitOfWork;
import io.dropwizard.jdbi3.JdbiFactory;
import io.dropwizard.migrations.MigrationsBundle;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import jakarta.validation.Valid;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.hibernate.SessionFactory;
import org.jdbi.v3.core.Jdbi;

import java.util.List;

/**
 * A small application that uses every Dropwizard client of {@code PooledDataSourceFactory} at once: JdbiFactory,
 * HibernateBundle and MigrationsBundle, on whichever of {@code hikari:} and {@code database:} is configured.
 */
public class DropInApp extends Application<DropInApp.Config> {
    public static class Config extends Configuration {
        @Valid
        @JsonProperty
        HikariDataSourceFactory hikari;

        @Valid
        @JsonProperty
        DataSourceFactory database;

        PooledDataSourceFactory pool() {
            return hikari != null ? hikari : database;
        }
    }

    private final HibernateBundle<Config> hibernate = new HibernateBundle<>(Note.class) {
        @Override
        public PooledDataSourceFactory getDataSourceFactory(Config configuration) {
            return configuration.pool();
        }
    };

    @Override
    public void initialize(Bootstrap<Config> bootstrap) {
        bootstrap.addBundle(new HikariBundle<>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(Config configuration) {
                return configuration.hikari;
            }
        });
        bootstrap.addBundle(new MigrationsBundle<>() {
            @Override
            public PooledDataSourceFactory getDataSourceFactory(Config configuration) {
                return configuration.pool();
            }

            @Override
            public String getMigrationsFileName() {
                return "dropin-migrations.xml";
            }
        });
        bootstrap.addBundle(hibernate);
    }

    @Override
    public void run(Config configuration, Environment environment) {
        Jdbi jdbi = new JdbiFactory().build(environment, configuration.pool(), "jdbi");
        environment.jersey().register(new CounterResource(jdbi));
        environment.jersey().register(new NoteResource(new NoteDao(hibernate.getSessionFactory())));
    }

    @Override
    protected void onFatalError(Throwable t) {
        // a failed command fails the test instead of exiting the JVM
        throw new IllegalStateException("command failed", t);
    }

    @Path("/counters")
    @Produces(MediaType.APPLICATION_JSON)
    public static class CounterResource {
        private final Jdbi jdbi;

        CounterResource(Jdbi jdbi) {
            this.jdbi = jdbi;
        }

        /** Two inserts in one JDBI transaction, then the count. */
        @POST
        public long addTwo(@QueryParam("name") String name) {
            jdbi.useTransaction(handle -> {
                handle.execute("INSERT INTO counters (name) VALUES (?)", name);
                handle.execute("INSERT INTO counters (name) VALUES (?)", name);
            });
            return jdbi.withHandle(handle -> handle.createQuery("SELECT COUNT(*) FROM counters WHERE name = :name")
                .bind("name", name).mapTo(Long.class).one());
        }
    }

    static class NoteDao extends AbstractDAO<Note> {
        NoteDao(SessionFactory sessionFactory) {
            super(sessionFactory);
        }

        Note add(String text) {
            return persist(new Note(text));
        }

        List<Note> all() {
            return list(currentSession().createQuery("FROM Note ORDER BY id", Note.class));
        }
    }

    @Path("/notes")
    @Produces(MediaType.APPLICATION_JSON)
    public static class NoteResource {
        private final NoteDao notes;

        NoteResource(NoteDao notes) {
            this.notes = notes;
        }

        @POST
        @UnitOfWork
        public Note add(@QueryParam("text") String text) {
            return notes.add(text);
        }

        @GET
        @UnitOfWork(readOnly = true)
        public List<Note> all() {
            return notes.all();
        }
    }
}
