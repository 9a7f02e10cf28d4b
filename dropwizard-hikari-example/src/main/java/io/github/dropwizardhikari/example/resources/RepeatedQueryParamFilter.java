package io.github.dropwizardhikari.example.resources;

import io.github.dropwizardhikari.example.errors.Errors;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.MultivaluedMap;

import java.util.List;
import java.util.Map;

/**
 * Refuses a query parameter given more than once ({@code user=87&user=88}) with a 400 naming it: JAX-RS would
 * silently answer for the first value. No endpoint of the API takes a list that way ({@code users=1,2,3} does).
 * It runs once a resource is matched, so an unknown path stays a 404.
 */
public class RepeatedQueryParamFilter implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
        MultivaluedMap<String, String> params = request.getUriInfo().getQueryParameters();
        for (Map.Entry<String, List<String>> param : params.entrySet()) {
            if (param.getValue().size() > 1) {
                throw Errors.of(400, "query param " + param.getKey() + " must be given once, not "
                    + param.getValue().size() + " times");
            }
        }
    }
}
