package io.github.dropwizardhikari.it.pgbouncer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;

/**
 * The one {@link PgBouncerStack} of this JVM, started on first use and stopped at exit: a container where a Docker
 * engine answers, otherwise this machine's {@code pgbouncer} and PostgreSQL binaries. With neither, the PgBouncer
 * suites fail with instructions; they never skip.
 */
public final class PgBouncerStacks {
    private static final Logger LOGGER = LoggerFactory.getLogger(PgBouncerStacks.class);

    private static PgBouncerStack stack;

    private PgBouncerStacks() {
    }

    public static synchronized PgBouncerStack get() {
        if (stack == null) {
            stack = start();
            PgBouncerStack started = stack;
            Runtime.getRuntime().addShutdownHook(new Thread(started::close, "pgbouncer-stack-stop"));
            LOGGER.warn("PgBouncer suites use {}", started.describe());
        }
        return stack;
    }

    private static PgBouncerStack start() {
        boolean docker = dockerAvailable();
        try {
            return docker ? ContainerPgBouncerStack.start() : LocalPgBouncerStack.start();
        } catch (Exception e) {
            throw new IllegalStateException("No PgBouncer for the integration tests (" + (docker
                ? "Docker answered, but the PgBouncer container did not start" : "no Docker engine answered")
                + "): " + e.getMessage() + ". Install Debian's pgbouncer package and PostgreSQL's server binaries "
                + "(apt-get install pgbouncer postgresql; .ci/run does this), or start Docker.", e);
        }
    }

    private static boolean dockerAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }
}
