package io.github.dropwizardhikari.it.vt;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jdbi3.JdbiFactory;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.jdbi.v3.core.Jdbi;

/**
 * One Jdbi pool, {@code GET /query}: a 10 ms query, so that a request holds its connection like a round trip to a
 * busy database, and {@code GET /query/hold?ms=}: a slow query. The configuration turns Dropwizard's virtual threads
 * on.
 */
public class VirtualThreadsApp extends Application<VirtualThreadsApp.Config> {
    public static class Config extends Configuration {
        @Valid
        @NotNull
        @JsonProperty
        HikariDataSourceFactory hikari = new HikariDataSourceFactory();
    }

    @Path("/query")
    @Produces(MediaType.TEXT_PLAIN)
    public static class QueryResource {
        private final Jdbi jdbi;

        QueryResource(Jdbi jdbi) {
            this.jdbi = jdbi;
        }

        @GET
        public String query() {
            return jdbi.withHandle(handle -> handle.createQuery("SELECT pg_sleep(0.01)::text || pg_backend_pid()")
                .mapTo(String.class).one());
        }

        /** Holds a connection for {@code ms} milliseconds of the database's time: a slow query. */
        @GET
        @Path("hold")
        public String hold(@QueryParam("ms") int millis) {
            return jdbi.withHandle(handle -> handle.createQuery("SELECT pg_sleep(:seconds)::text")
                .bind("seconds", millis / 1_000.0).mapTo(String.class).one());
        }
    }

    @Override
    public void initialize(Bootstrap<Config> bootstrap) {
        bootstrap.addBundle(new HikariBundle<>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(Config configuration) {
                return configuration.hikari;
            }
        });
    }

    @Override
    public void run(Config configuration, Environment environment) {
        Jdbi jdbi = new JdbiFactory().build(environment, configuration.hikari, "vt");
        environment.jersey().register(new QueryResource(jdbi));
    }
}
