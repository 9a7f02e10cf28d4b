package io.github.dropwizardhikari.admission;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.function.IntConsumer;

/**
 * Warns when a pool whose {@code maxSize} set the admission limit is resized at runtime.
 *
 * <p>Jetty's {@code QoSHandler} fixes its limit when the server starts and refuses to change it while running,
 * so the limit stays where it was until the application restarts. Without this warning, a pool grown through
 * JMX would look resized while admission kept the extra connections idle.</p>
 */
public final class AdmissionResizeWarning implements IntConsumer {
    private static final Logger LOGGER = LoggerFactory.getLogger(AdmissionResizeWarning.class);

    private final String poolName;
    private final int admissionLimit;

    /**
     * @param poolName       the pool's name, for the message
     * @param admissionLimit the requests admission lets in at once, taken from the pool's {@code maxSize}
     */
    public AdmissionResizeWarning(String poolName, int admissionLimit) {
        this.poolName = poolName;
        this.admissionLimit = admissionLimit;
    }

    @Override
    public void accept(int newMaxSize) {
        if (newMaxSize != admissionLimit) {
            LOGGER.warn("Pool {} resized to {} connections, but admission still lets {} requests in at once: "
                + "Jetty's QoSHandler cannot change its limit while the server runs; restart the application "
                + "with maxSize {} to apply it to admission", poolName, newMaxSize, admissionLimit, newMaxSize);
        }
    }
}
