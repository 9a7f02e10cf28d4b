package io.github.dropwizardhikari.faulthandling;

import com.codahale.metrics.health.HealthCheck;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The pool's connectivity check, unhealthy at once with the cause while the pool's last connection attempt failed,
 * instead of queueing for a connection that cannot come. Otherwise it runs the wrapped check, and stops waiting when
 * an outage begins or after {@code boundMillis}.
 */
final class KnownOutageCheck extends HealthCheck {
    private static final Logger LOGGER = LoggerFactory.getLogger(KnownOutageCheck.class);
    private static final long POLL_MILLIS = 10;

    private final HealthCheck check;
    private final DatabaseOutage outage;
    private final String poolName;
    private final long boundMillis;
    private final ThreadPoolExecutor executor;

    KnownOutageCheck(HealthCheck check, DatabaseOutage outage, String poolName, long boundMillis) {
        this.check = check;
        this.outage = outage;
        this.poolName = poolName;
        this.boundMillis = boundMillis;
        // no thread is kept once the checks stop coming
        this.executor = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 1, TimeUnit.SECONDS, new SynchronousQueue<>(),
            runnable -> {
                Thread thread = new Thread(runnable, poolName + ":health");
                thread.setDaemon(true);
                return thread;
            });
    }

    @Override
    protected Result check() {
        Future<Result> answer = null;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
        try {
            while (true) {
                Optional<String> cause = outage.knownCause();
                if (cause.isPresent()) {
                    return Result.unhealthy("pool %s cannot connect: %s", poolName, cause.get());
                } else if (answer == null) {
                    answer = executor.submit(check::execute);
                } else if (System.nanoTime() > deadline) {
                    return Result.unhealthy("pool %s did not hand out a connection within %d ms", poolName,
                        boundMillis);
                }
                try {
                    return answer.get(POLL_MILLIS, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    // ask the outage again
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Result.unhealthy("interrupted while checking pool %s", poolName);
        } catch (ExecutionException e) {
            // the message in the answer, the stack in the log once: /healthcheck serves no stack traces
            LOGGER.warn("Pool {}: the connectivity check failed", poolName, e.getCause());
            return Result.unhealthy("pool %s: %s", poolName, String.valueOf(e.getCause().getMessage()));
        }
    }
}
