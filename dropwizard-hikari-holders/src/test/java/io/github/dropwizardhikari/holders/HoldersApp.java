package io.github.dropwizardhikari.holders;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.servlets.tasks.Task;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The bundle's pool ({@code hikari}), a resource that holds a connection for {@code ?millis=}, and a task that
 * borrows.
 */
public class HoldersApp extends Application<HoldersApp.Config> {
    public static class Config extends Configuration {
        @Valid
        @NotNull
        @JsonProperty
        HikariDataSourceFactory database = new HikariDataSourceFactory();
    }

    private final HikariBundle<Config> bundle = new HikariBundle<>() {
        @Override
        public HikariDataSourceFactory getDataSourceFactory(Config configuration) {
            return configuration.database;
        }
    };

    @Override
    public void initialize(Bootstrap<Config> bootstrap) {
        bootstrap.addBundle(bundle);
    }

    @Override
    public void run(Config configuration, Environment environment) {
        environment.jersey().register(new People());
        environment.admin().addTask(new Task("borrowing") {
            @Override
            public void execute(Map<String, List<String>> parameters, PrintWriter output) throws Exception {
                try (Connection connection = bundle.getDataSource().getConnection()) {
                    output.println(connection.isValid(1));
                }
            }
        });
    }

    @Path("/people")
    public class People {
        @GET
        @Path("{id}")
        public String person(@PathParam("id") long id, @QueryParam("millis") long millis) throws Exception {
            return hold(millis);
        }

        @GET
        public String all(@QueryParam("millis") long millis) throws Exception {
            return hold(millis);
        }

        private String hold(long millis) throws SQLException, InterruptedException {
            try (Connection ignored = bundle.getDataSource().getConnection()) {
                TimeUnit.MILLISECONDS.sleep(millis);
            }
            return "held";
        }
    }
}
