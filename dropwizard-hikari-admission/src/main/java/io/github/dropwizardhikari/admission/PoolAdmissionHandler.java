package io.github.dropwizardhikari.admission;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Meter;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import com.zaxxer.hikari.HikariConfig;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.MimeTypes;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Jetty's {@link QoSHandler} (which admits and queues), sized to the block's pools when the server starts, with the
 * metrics {@code <pool>.admission.{admitted, inside, waiting, wait, rejected}} ({@code <pool>} the name of the first
 * pool built from the block) and a 503 with {@code Retry-After} and a body in Dropwizard's error format that names
 * the limit.
 */
final class PoolAdmissionHandler extends QoSHandler {
    private static final Logger LOGGER = LoggerFactory.getLogger(PoolAdmissionHandler.class);
    private static final String ARRIVAL_ATTRIBUTE = PoolAdmissionHandler.class.getName() + ".arrival";

    private final AdmissionExtension settings;
    private final Supplier<List<ManagedHikariDataSource>> pools;
    private final MetricRegistry metrics;
    private final Meter admitted = new Meter();
    private final Counter inside = new Counter();
    private final Timer wait = new Timer();
    private final Meter rejected = new Meter();
    private final Gauge<Integer> waiting = this::getSuspendedRequestCount;
    private final AdmissionLimitWarning warning;
    private volatile String metricsPrefix = "";
    // Jetty's QoSHandler cannot stop what never started, and a server whose start failed stops its handlers
    private volatile boolean queueStarted;

    PoolAdmissionHandler(AdmissionExtension settings, Supplier<List<ManagedHikariDataSource>> pools,
                         MetricRegistry metrics) {
        this.settings = settings;
        this.pools = pools;
        this.metrics = metrics;
        this.warning = new AdmissionLimitWarning(metrics,
            () -> pools.get().stream().map(ManagedHikariDataSource::getPoolName).toList(), System::nanoTime);
        includePath(settings.getPaths().toArray(String[]::new));
    }

    @Override
    protected void doStart() throws Exception {
        size();
        metricsOf(metricsPrefix).forEach(metrics::register);
        super.doStart();
        queueStarted = true;
        LOGGER.info("Admission: at most {} requests to {} run at once; the others wait up to {} ms in arrival order, "
            + "then get 503 (the admission extension of pool {})", getMaxRequestCount(), settings.getPaths(),
            getMaxSuspend().toMillis(), metricsPrefix);
    }

    @Override
    protected void doStop() throws Exception {
        if (queueStarted) {
            queueStarted = false;
            super.doStop();
        }
        // this handler's own metric objects only, whatever name they were registered under
        List<Metric> own = List.copyOf(metricsOf(metricsPrefix).values());
        metrics.removeMatching((name, metric) -> own.contains(metric));
    }

    /**
     * Takes the limit and the wait from the settings, or else from the pools built from the block by now (the
     * application builds them in its {@code run}, before the server starts): their summed {@code maxSize} and their
     * longest {@code maxWaitForConnection}. Jetty cannot change them once the handler runs.
     */
    void size() {
        List<HikariConfig> built = pools.get().stream().map(ManagedHikariDataSource::configurationCopy).toList();
        if (built.isEmpty() && (settings.getMaxConcurrentRequests().isEmpty() || settings.getMaxWait().isEmpty())) {
            throw new IllegalStateException("The admission extension takes its limit from the pools built from its "
                + "block, and none was built before the server started: build the pool in Application.run "
                + "(JdbiFactory, a HibernateBundle, HikariBundle.getDataSource()), or set maxConcurrentRequests and "
                + "maxWait of the admission extension");
        }
        metricsPrefix = built.isEmpty() ? HikariBundle.DEFAULT_NAME : built.get(0).getPoolName();
        setMaxRequestCount(settings.getMaxConcurrentRequests()
            .orElseGet(() -> built.stream().mapToInt(HikariConfig::getMaximumPoolSize).sum()));
        setMaxSuspend(java.time.Duration.ofMillis(settings.getMaxWait().map(io.dropwizard.util.Duration::toMilliseconds)
            .orElseGet(() -> built.stream().mapToLong(HikariConfig::getConnectionTimeout).max().orElseThrow())));
        setMaxSuspendedRequestCount(settings.getMaxWaitingRequests());
    }

    private Map<String, Metric> metricsOf(String prefix) {
        return Map.of(MetricRegistry.name(prefix, "admission", "admitted"), admitted,
            MetricRegistry.name(prefix, "admission", "inside"), inside,
            MetricRegistry.name(prefix, "admission", "wait"), wait,
            MetricRegistry.name(prefix, "admission", "rejected"), rejected,
            MetricRegistry.name(prefix, "admission", "waiting"), waiting);
    }

    @Override
    public boolean onConditionsMet(Request request, Response response, Callback callback) throws Exception {
        request.setAttribute(ARRIVAL_ATTRIBUTE, System.nanoTime());
        return super.onConditionsMet(request, response, callback);
    }

    @Override
    protected boolean nextHandler(Request request, Response response, Callback callback) throws Exception {
        Object arrival = request.getAttribute(ARRIVAL_ATTRIBUTE);
        if (arrival instanceof Long) {
            wait.update(System.nanoTime() - (Long) arrival, TimeUnit.NANOSECONDS);
        }
        admitted.mark();
        inside.inc();
        Request.addCompletionListener(request, failure -> inside.dec());
        return super.nextHandler(request, response, callback);
    }

    @Override
    protected void reject(Request request, Response response, Callback callback, int status) {
        writeUnavailable(response, callback,
            getMaxSuspendedRequestCount() + " more are waiting already (the admission extension's maxWaitingRequests)");
    }

    @Override
    protected void expireSuspended(Request request, Response response, Callback callback) {
        writeUnavailable(response, callback,
            "this request waited " + getMaxSuspend().toMillis() + " ms for its turn (the admission extension's maxWait)");
    }

    private void writeUnavailable(Response response, Callback callback, String why) {
        rejected.mark();
        warning.refused(getMaxRequestCount(), why);
        String message = "the server is at its admission limit of " + getMaxRequestCount()
            + " concurrent requests; " + why;
        response.setStatus(HttpStatus.SERVICE_UNAVAILABLE_503);
        response.getHeaders().put(HttpHeader.RETRY_AFTER, settings.getRetryAfter().toSeconds());
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, MimeTypes.Type.APPLICATION_JSON_UTF_8.asString());
        String body = "{\"code\":503,\"message\":\"" + message + "\"}";
        response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
    }
}
