package io.github.dropwizardhikari.admission;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.PoolHooks;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Pool-aware admission of HTTP requests ({@code type: admission}), for applications whose every request uses the
 * pool. Naming it in the block's {@code extensions:} is what turns it on; without it nothing touches Jetty.
 *
 * <pre>{@code
 * hikari:
 *   url: jdbc:postgresql://db/app
 *   maxSize: 8
 *   extensions:
 *     - type: admission
 *       paths: ["/questions/*"]
 * }</pre>
 *
 * <p>Jetty's {@code QoSHandler}, between the application context and its servlets (the admin port is never
 * limited), lets at most {@code maxConcurrentRequests} requests run at once, by default the {@code maxSize} of the
 * pools built from the block when the server starts; the others wait in FIFO order without holding a thread, and get
 * a 503 with {@code Retry-After} once they waited {@code maxWait}. It limits requests, not connections: where some
 * requests do not use the database, prefer fair borrowing.</p>
 *
 * <table>
 * <caption>Configuration parameters (an entry {@code type: admission} of {@code extensions:})</caption>
 * <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 * <tr><td>{@code maxConcurrentRequests}</td><td>the pool's {@code maxSize}</td><td>Requests admitted at once;
 * at least 1. By default the sum of the {@code maxSize} of the pools built from the block.</td></tr>
 * <tr><td>{@code maxWait}</td><td>the pool's {@code maxWaitForConnection}</td><td>How long a request may wait
 * for admission before it is answered 503; at least 1 millisecond.</td></tr>
 * <tr><td>{@code maxWaitingRequests}</td><td>1024</td><td>Requests that may wait at once; more are answered 503
 * at once.</td></tr>
 * <tr><td>{@code paths}</td><td>{@code /*}</td><td>Servlet path specs, relative to the application context, of
 * the requests to limit.</td></tr>
 * <tr><td>{@code retryAfter}</td><td>1 second</td><td>The {@code Retry-After} of a 503 answer, in whole
 * seconds.</td></tr>
 * </table>
 *
 * <p>The limit is fixed at start (Jetty 12's {@code QoSHandler} cannot change it while running), so a pool resized at
 * runtime keeps its old limit; the 503 warning says so.</p>
 */
@JsonTypeName("admission")
public class AdmissionExtension implements PoolExtension {
    @Nullable
    @Min(1)
    private Integer maxConcurrentRequests;

    @Nullable
    @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
    private Duration maxWait;

    @Min(0)
    private int maxWaitingRequests = 1024;

    @NotEmpty
    private List<@NotNull String> paths = List.of("/*");

    @NotNull
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    private Duration retryAfter = Duration.seconds(1);

    @JsonProperty
    public Optional<Integer> getMaxConcurrentRequests() {
        return Optional.ofNullable(maxConcurrentRequests);
    }

    @JsonProperty
    public void setMaxConcurrentRequests(@Nullable Integer maxConcurrentRequests) {
        this.maxConcurrentRequests = maxConcurrentRequests;
    }

    @JsonProperty
    public Optional<Duration> getMaxWait() {
        return Optional.ofNullable(maxWait);
    }

    @JsonProperty
    public void setMaxWait(@Nullable Duration maxWait) {
        this.maxWait = maxWait;
    }

    @JsonProperty
    public int getMaxWaitingRequests() {
        return maxWaitingRequests;
    }

    @JsonProperty
    public void setMaxWaitingRequests(int maxWaitingRequests) {
        this.maxWaitingRequests = maxWaitingRequests;
    }

    @JsonProperty
    public List<String> getPaths() {
        return paths;
    }

    @JsonProperty
    public void setPaths(List<String> paths) {
        this.paths = paths;
    }

    @JsonProperty
    public Duration getRetryAfter() {
        return retryAfter;
    }

    @JsonProperty
    public void setRetryAfter(Duration retryAfter) {
        this.retryAfter = retryAfter;
    }

    /**
     * Inserts the admission handler between the application context and its servlets, so only application requests
     * are limited. It takes its size from the pools when the server starts: the application builds them in its
     * {@code run}, after this.
     */
    @Override
    public void run(Environment environment, Supplier<List<ManagedHikariDataSource>> pools) {
        environment.getApplicationContext().insertHandler(new PoolAdmissionHandler(this, pools, environment.metrics()));
    }

    /** Admission acts on HTTP requests only: the pool itself is left as HikariCP runs it. */
    @Override
    public PoolHooks attach(HikariConfig config, MetricRegistry metrics) {
        return PoolHooks.NONE;
    }

    /** @return every setting with its value; {@code null} where the pool's own setting applies */
    @Override
    public String toString() {
        return "AdmissionExtension{maxConcurrentRequests=" + maxConcurrentRequests + ", maxWait=" + maxWait
            + ", maxWaitingRequests=" + maxWaitingRequests + ", paths=" + paths + ", retryAfter=" + retryAfter + "}";
    }
}
