package io.github.dropwizardhikari.admission;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Application;
import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.jetty.server.Server;

import javax.sql.DataSource;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An application whose pool names the admission extension in YAML (nothing in Java), whose {@code /work/{id}}
 * requests hold their slot until the test opens a gate.
 */
public class AdmissionTestApp extends Application<AdmissionTestApp.Config> {
    public static class Config extends Configuration {
        @Valid
        @NotNull
        @JsonProperty
        HikariDataSourceFactory hikari = new HikariDataSourceFactory();
    }

    /** What the resource saw; shared with the test. */
    static final class Observations {
        final List<String> entered = new CopyOnWriteArrayList<>();
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger maxInside = new AtomicInteger();
        final Semaphore gate = new Semaphore(0);
        volatile Server server;
        volatile DataSource pool;

        void reset() {
            entered.clear();
            inside.set(0);
            maxInside.set(0);
            gate.drainPermits();
        }
    }

    static final Observations OBSERVED = new Observations();

    @Path("/")
    @Produces(MediaType.TEXT_PLAIN)
    public static class WorkResource {
        @GET
        @Path("work/{id}")
        public String work(@PathParam("id") String id) throws InterruptedException {
            int now = OBSERVED.inside.incrementAndGet();
            OBSERVED.maxInside.accumulateAndGet(now, Math::max);
            OBSERVED.entered.add(id);
            try {
                // bounded, so a failing test cannot hang the build
                OBSERVED.gate.tryAcquire(20, TimeUnit.SECONDS);
                return id;
            } finally {
                OBSERVED.inside.decrementAndGet();
            }
        }

        @GET
        @Path("free")
        public String free() {
            return "free";
        }
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
        // the pool whose maxSize the admission limit is taken from
        OBSERVED.pool = hikariBundle.getDataSource();
        environment.jersey().register(new WorkResource());
        environment.lifecycle().addServerLifecycleListener(server -> OBSERVED.server = server);
    }
}
