package io.github.dropwizardhikari.admission;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.MimeTypes;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.util.Callback;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Jetty's {@link QoSHandler} (which admits and queues) with the metrics
 * {@code <name>.admission.{admitted, inside, waiting, wait, rejected}} and a 503 with {@code Retry-After} and a body
 * in Dropwizard's error format that names the limit.
 */
public class PoolAdmissionHandler extends QoSHandler {
    private static final String ARRIVAL_ATTRIBUTE = PoolAdmissionHandler.class.getName() + ".arrival";

    private final Meter admitted;
    private final Counter inside;
    private final Timer wait;
    private final Meter rejected;
    private final long retryAfterSeconds;
    private final AdmissionLimitWarning warning;

    PoolAdmissionHandler(MetricRegistry metrics, String name, long retryAfterSeconds) {
        this.admitted = metrics.meter(MetricRegistry.name(name, "admission", "admitted"));
        this.inside = metrics.counter(MetricRegistry.name(name, "admission", "inside"));
        this.wait = metrics.timer(MetricRegistry.name(name, "admission", "wait"));
        this.rejected = metrics.meter(MetricRegistry.name(name, "admission", "rejected"));
        metrics.gauge(MetricRegistry.name(name, "admission", "waiting"), () -> this::getSuspendedRequestCount);
        this.retryAfterSeconds = retryAfterSeconds;
        this.warning = new AdmissionLimitWarning(metrics, name, System::nanoTime);
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
            getMaxSuspendedRequestCount() + " more are waiting already (hikari.admission.maxWaitingRequests)");
    }

    @Override
    protected void expireSuspended(Request request, Response response, Callback callback) {
        writeUnavailable(response, callback,
            "this request waited " + getMaxSuspend().toMillis() + " ms for its turn (hikari.admission.maxWait)");
    }

    private void writeUnavailable(Response response, Callback callback, String why) {
        rejected.mark();
        warning.refused(getMaxRequestCount(), why);
        String message = "the server is at its admission limit of " + getMaxRequestCount()
            + " concurrent requests; " + why;
        response.setStatus(HttpStatus.SERVICE_UNAVAILABLE_503);
        response.getHeaders().put(HttpHeader.RETRY_AFTER, retryAfterSeconds);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, MimeTypes.Type.APPLICATION_JSON_UTF_8.asString());
        String body = "{\"code\":503,\"message\":\"" + message + "\"}";
        response.write(true, ByteBuffer.wrap(body.getBytes(StandardCharsets.UTF_8)), callback);
    }
}
