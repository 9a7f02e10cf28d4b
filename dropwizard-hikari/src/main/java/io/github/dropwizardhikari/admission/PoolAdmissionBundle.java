package io.github.dropwizardhikari.admission;

import io.dropwizard.core.Configuration;
import io.dropwizard.core.ConfiguredBundle;
import io.dropwizard.core.setup.Environment;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pool-aware admission of HTTP requests, for applications whose every request uses the pool. Opt-in: adding this
 * bundle is what turns it on; {@link HikariBundle} never touches Jetty.
 *
 * <pre>{@code
 * bootstrap.addBundle(new PoolAdmissionBundle<MyConfiguration>() {
 *     public HikariDataSourceFactory getDataSourceFactory(MyConfiguration configuration) {
 *         return configuration.getHikari();
 *     }
 * });
 * }</pre>
 *
 * <p>Jetty's {@code QoSHandler}, between the application context and its servlets, lets at most
 * {@code hikari.admission.maxConcurrentRequests} (by default the pool's {@code maxSize}) requests run at once; the
 * others wait without holding a thread ({@link AdmissionFactory}). It limits requests, not connections: where some
 * requests do not use the database, prefer the pool's fair borrowing.</p>
 *
 * @param <T> the application's configuration class
 */
public abstract class PoolAdmissionBundle<T extends Configuration> implements ConfiguredBundle<T> {
    private static final Logger LOGGER = LoggerFactory.getLogger(PoolAdmissionBundle.class);

    /** @return the pool's factory; {@code null} when the application runs without HikariCP (nothing is done) */
    @Nullable
    public abstract HikariDataSourceFactory getDataSourceFactory(T configuration);

    /**
     * The prefix of the admission metrics, and the pool whose {@code MaxConnections} a 503's warning compares with:
     * override it to match the name the application gives its pool ({@code JdbiFactory.build(env, factory, name)}).
     */
    protected String name() {
        return HikariBundle.DEFAULT_NAME;
    }

    @Override
    public void run(T configuration, Environment environment) {
        HikariDataSourceFactory factory = getDataSourceFactory(configuration);
        if (factory == null) {
            LOGGER.info("No HikariCP data source configured; {} does nothing", getClass().getName());
            return;
        }
        AdmissionFactory admissionFactory = factory.getAdmission();
        if (!admissionFactory.isEnabled()) {
            LOGGER.info("Admission is off (hikari.admission.enabled: false)");
            return;
        }
        PoolAdmissionHandler admission = admissionFactory.build(factory.getMaxSize(),
            factory.getMaxWaitForConnection(), environment.metrics(), name());
        // between the application context and its servlets, so only application requests are limited
        environment.getApplicationContext().insertHandler(admission);
        LOGGER.info("Admission: at most {} requests to {} run at once; the others wait up to {} ms in arrival "
            + "order, then get 503 (hikari.admission)", admission.getMaxRequestCount(), admissionFactory.getPaths(),
            admission.getMaxSuspend().toMillis());
    }
}
