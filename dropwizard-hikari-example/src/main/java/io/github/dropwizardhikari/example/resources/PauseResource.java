package io.github.dropwizardhikari.example.resources;

import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code GET /pause?ms=20}: waits, as a call to another service would, and never touches the database. The mixed
 * benchmark sends half its load here, to show what the pool's settings do to requests that do not use it.
 */
@Path("/pause")
@Produces(MediaType.APPLICATION_JSON)
public class PauseResource {
    static final int MAX_MILLIS = 1_000;

    @GET
    public Map<String, Integer> pause(@QueryParam("ms") @DefaultValue("20") String ms) throws InterruptedException {
        // read as text: JAX-RS answers an int parameter it cannot convert with 404, naming nothing
        int millis = (int) WholeNumbers.parse("query param ms", ms, 0, MAX_MILLIS);
        TimeUnit.MILLISECONDS.sleep(millis);
        return Map.of("pausedMs", millis);
    }
}
