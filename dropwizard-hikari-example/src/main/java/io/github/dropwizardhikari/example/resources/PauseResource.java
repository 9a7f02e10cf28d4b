package io.github.dropwizardhikari.example.resources;

import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

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
    public Map<String, Integer> pause(@QueryParam("ms") @DefaultValue("20") int millis) throws InterruptedException {
        if (millis < 0 || millis > MAX_MILLIS) {
            throw new WebApplicationException("ms must be between 0 and " + MAX_MILLIS, Response.Status.BAD_REQUEST);
        }
        TimeUnit.MILLISECONDS.sleep(millis);
        return Map.of("pausedMs", millis);
    }
}
