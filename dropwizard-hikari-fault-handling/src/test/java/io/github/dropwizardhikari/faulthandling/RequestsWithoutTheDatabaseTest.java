package io.github.dropwizardhikari.faulthandling;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.testing.ResourceHelpers;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import javax.sql.DataSource;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule: the fault handling delays or refuses no request that never borrows a connection. With a pool of 2 and
 * {@code fault-handling} named, forty requests that sleep without the database all succeed in about one sleep.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class RequestsWithoutTheDatabaseTest {
    private static final long SLEEP_MILLIS = 1_500;
    private static final int REQUESTS = 40;

    public static class App extends Application<App.Config> {
        public static class Config extends Configuration {
            @Valid
            @NotNull
            @JsonProperty
            HikariDataSourceFactory hikari = new HikariDataSourceFactory();
        }

        private final HikariBundle<Config> hikariBundle = new HikariBundle<>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(Config configuration) {
                return configuration.hikari;
            }
        };

        @Override
        public void initialize(Bootstrap<Config> bootstrap) {
            bootstrap.addBundle(hikariBundle);
        }

        @Override
        public void run(Config configuration, Environment environment) {
            environment.jersey().register(new Resource(hikariBundle.getDataSource()));
        }
    }

    @Path("/")
    @Produces(MediaType.TEXT_PLAIN)
    public static class Resource {
        private final DataSource pool;

        Resource(DataSource pool) {
            this.pool = pool;
        }

        @GET
        @Path("sleep")
        public String sleep() throws InterruptedException {
            TimeUnit.MILLISECONDS.sleep(SLEEP_MILLIS);
            return "slept";
        }

        @GET
        @Path("query")
        public String query() throws Exception {
            try (Connection connection = pool.getConnection()) {
                return connection.isValid(1) ? "valid" : "invalid";
            }
        }
    }

    static final DropwizardAppExtension<App.Config> APP = new DropwizardAppExtension<>(App.class,
        ResourceHelpers.resourceFilePath("no-database-fault-handling-app.yml"));

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private CompletableFuture<HttpResponse<String>> get(String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + APP.getLocalPort() + path))
            .timeout(Duration.ofSeconds(30)).build();
        return client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void requestsThatNeverBorrowAConnectionAreNeitherHeldBackNorRefused() throws Exception {
        // the pool is up and works
        assertThat(get("/query").get(10, TimeUnit.SECONDS).body()).isEqualTo("valid");

        long started = System.nanoTime();
        List<CompletableFuture<HttpResponse<String>>> responses = IntStream.range(0, REQUESTS)
            .mapToObj(i -> get("/sleep")).toList();
        for (CompletableFuture<HttpResponse<String>> response : responses) {
            assertThat(response.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
        }
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        // Held to the pool's two at a time they would take twenty sleeps (30 s); together they take one, plus what a
        // loaded machine adds.
        assertThat(tookMillis).as("%d requests that sleep %d ms took %d ms together", REQUESTS, SLEEP_MILLIS,
            tookMillis).isBetween(SLEEP_MILLIS, 2 * SLEEP_MILLIS + 2_000);
    }
}
