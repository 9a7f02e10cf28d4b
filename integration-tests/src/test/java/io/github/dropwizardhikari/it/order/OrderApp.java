package io.github.dropwizardhikari.it.order;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.ManagedDataSource;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * One pool, {@value #POOL}, from {@link HikariBundle#getDataSource()}, borrowed by requests the test drives one step
 * at a time: {@code GET /borrow} borrows and returns; {@code GET /statement-close} also closes HikariCP's own
 * connection through its statement; {@code GET /hold/{n}} holds its connection until the test lets go;
 * {@code GET /refused} answers 503 with the message of a borrow that failed; {@code GET /admitted/wait} waits for the
 * test without borrowing, and {@code GET /admitted/borrow} borrows, both under the admission extension's path.
 */
public class OrderApp extends Application<OrderApp.Config> {
    static final String POOL = "ordered";

    public static class Config extends Configuration {
        @Valid
        @NotNull
        @JsonProperty
        HikariDataSourceFactory hikari = new HikariDataSourceFactory();
    }

    final Semaphore holding = new Semaphore(0);
    final CountDownLatch letGo = new CountDownLatch(1);
    final Semaphore admittedWaiting = new Semaphore(0);
    final CountDownLatch admittedLetGo = new CountDownLatch(1);

    private final HikariBundle<Config> bundle = new HikariBundle<>() {
        @Override
        public HikariDataSourceFactory getDataSourceFactory(Config configuration) {
            return configuration.hikari;
        }

        // a name no other suite's pool has: what the test reads of the log is this pool's
        @Override
        protected String name() {
            return POOL;
        }
    };

    @Override
    public void initialize(Bootstrap<Config> bootstrap) {
        bootstrap.addBundle(bundle);
    }

    @Override
    public void run(Config configuration, Environment environment) {
        // built here, before the server starts, so that admission takes its limit from it
        environment.jersey().register(new Borrows(bundle.getDataSource()));
    }

    @Path("/")
    @Produces(MediaType.TEXT_PLAIN)
    public class Borrows {
        private final ManagedDataSource pool;

        Borrows(ManagedDataSource pool) {
            this.pool = pool;
        }

        @GET
        @Path("borrow")
        public String borrow() throws SQLException {
            try (Connection connection = pool.getConnection(); Statement statement = connection.createStatement()) {
                return String.valueOf(statement.execute("SELECT 1"));
            }
        }

        @GET
        @Path("statement-close")
        public String statementClose() throws SQLException {
            try (Connection connection = pool.getConnection()) {
                Statement statement = connection.createStatement();
                statement.execute("SELECT 1");
                statement.getConnection().close();
                return String.valueOf(statement.isClosed());
            }
        }

        @GET
        @Path("hold/{n}")
        public String hold(@PathParam("n") int n) throws Exception {
            try (Connection connection = pool.getConnection()) {
                holding.release();
                return String.valueOf(letGo.await(30, TimeUnit.SECONDS) && connection.isValid(1));
            }
        }

        @GET
        @Path("refused")
        public Response refused() {
            try (Connection connection = pool.getConnection()) {
                return Response.ok("borrowed").build();
            } catch (SQLException e) {
                return Response.status(503).entity(e.getClass().getName() + ": " + e.getMessage()).build();
            }
        }

        @GET
        @Path("admitted/wait")
        public String admittedWait() throws InterruptedException {
            admittedWaiting.release();
            return String.valueOf(admittedLetGo.await(30, TimeUnit.SECONDS));
        }

        @GET
        @Path("admitted/borrow")
        public String admittedBorrow() throws SQLException {
            return borrow();
        }
    }
}
