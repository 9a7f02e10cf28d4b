package io.github.dropwizardhikari.admission;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.NotNull;
import org.jspecify.annotations.Nullable;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The settings of pool-aware admission ({@code hikari.admission}), read only by {@link PoolAdmissionBundle}: without
 * that bundle they do nothing. Admission limits concurrent application requests, by default to the pool's
 * {@code maxSize}, queueing the rest in FIFO order. It pays when every request uses the pool and request threads far
 * outnumber connections; it hurts where requests run without the database, since each still holds a place.
 *
 * <table>
 * <caption>Configuration parameters ({@code hikari.admission})</caption>
 * <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 * <tr><td>{@code enabled}</td><td>{@code true}</td><td>With {@link PoolAdmissionBundle} added, {@code false} turns
 * admission off without a code change.</td></tr>
 * <tr><td>{@code maxConcurrentRequests}</td><td>the pool's {@code maxSize}</td><td>Requests admitted at once;
 * at least 1.</td></tr>
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
public class AdmissionFactory {
    private boolean enabled = true;

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
    public boolean isEnabled() {
        return enabled;
    }

    @JsonProperty
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

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

    /** @return every setting with its value; {@code null} where the pool's own setting applies */
    @Override
    public String toString() {
        return "AdmissionFactory{enabled=" + enabled + ", maxConcurrentRequests=" + maxConcurrentRequests
            + ", maxWait=" + maxWait + ", maxWaitingRequests=" + maxWaitingRequests + ", paths=" + paths
            + ", retryAfter=" + retryAfter + "}";
    }

    /**
     * @param poolMaxSize           the default limit
     * @param poolConnectionTimeout the default wait
     * @param name                  the prefix of the handler's metrics
     */
    public PoolAdmissionHandler build(int poolMaxSize, Duration poolConnectionTimeout, MetricRegistry metrics,
                                      String name) {
        PoolAdmissionHandler handler = new PoolAdmissionHandler(metrics, name, retryAfter.toSeconds());
        handler.setMaxRequestCount(getMaxConcurrentRequests().orElse(poolMaxSize));
        handler.setMaxSuspend(java.time.Duration.ofMillis(getMaxWait().orElse(poolConnectionTimeout)
            .toMilliseconds()));
        handler.setMaxSuspendedRequestCount(maxWaitingRequests);
        handler.includePath(paths.toArray(String[]::new));
        return handler;
    }
}
