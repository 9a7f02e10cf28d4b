package io.github.dropwizardhikari.it.credentials;

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
import jakarta.ws.rs.core.MediaType;
import org.jdbi.v3.core.Jdbi;

/** One JDBI pool and {@code GET /who}: the server process that served the request and the user it runs as. */
public class RotationApp extends Application<RotationApp.Config> {
    public static class Config extends Configuration {
        @Valid
        @NotNull
        @JsonProperty
        HikariDataSourceFactory hikari = new HikariDataSourceFactory();
    }

    @Path("/who")
    @Produces(MediaType.TEXT_PLAIN)
    public static class WhoResource {
        private final Jdbi jdbi;

        WhoResource(Jdbi jdbi) {
            this.jdbi = jdbi;
        }

        @GET
        public String who() {
            return jdbi.withHandle(handle -> handle.createQuery("SELECT current_user || ' ' || pg_backend_pid()")
                .mapTo(String.class).one());
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
        Jdbi jdbi = new JdbiFactory().build(environment, configuration.hikari, "rotation");
        environment.jersey().register(new WhoResource(jdbi));
    }
}
