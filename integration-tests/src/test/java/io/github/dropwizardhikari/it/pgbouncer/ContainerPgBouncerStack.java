package io.github.dropwizardhikari.it.pgbouncer;

import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.HostPortWaitStrategy;
import org.testcontainers.images.builder.ImageFromDockerfile;
import org.testcontainers.images.builder.Transferable;

import java.time.Duration;

/**
 * The stack in one container where a Docker engine runs (GitHub Actions): Debian 12's {@code postgresql-15} and
 * {@code pgbouncer} packages, the same PgBouncer 1.18 as the machine-local stack, run by the same supervisor script
 * as the {@code postgres} user. One container rather than two, so that restarting PostgreSQL (a {@code pg_ctl
 * restart} inside it) keeps its address for PgBouncer and its mapped port for the suite.
 */
final class ContainerPgBouncerStack extends PgBouncerStack {
    private static final String SERVER_BIN = "/usr/lib/postgresql/15/bin";
    private static final String CONFIG_DIR = "/stack";
    private static final String DATA_DIR = "/tmp/stack";
    private static final String LISTEN = "*";
    private static final int SERVER_PORT = 5432;
    private static final int BOUNCER_PORT = 6432;

    private final GenericContainer<?> container;

    private ContainerPgBouncerStack(GenericContainer<?> container) {
        this.container = container;
    }

    static ContainerPgBouncerStack start() throws Exception {
        ImageFromDockerfile image = new ImageFromDockerfile("dropwizard-hikari-it-pgbouncer", false)
            .withDockerfileFromBuilder(dockerfile -> dockerfile
                .from("debian:bookworm-slim")
                .run("apt-get update && apt-get install -y --no-install-recommends postgresql-15 pgbouncer "
                    + "&& rm -rf /var/lib/apt/lists/*")
                .user("postgres")
                .cmd("sh", CONFIG_DIR + "/supervisor.sh")
                .build());
        GenericContainer<?> container = new GenericContainer<>(image)
            .withExposedPorts(SERVER_PORT, BOUNCER_PORT)
            .withCopyToContainer(Transferable.of(StackFiles.ini(LISTEN, SERVER_PORT, BOUNCER_PORT, CONFIG_DIR,
                DATA_DIR)), CONFIG_DIR + "/pgbouncer.ini")
            .withCopyToContainer(Transferable.of(StackFiles.userList()), CONFIG_DIR + "/userlist.txt")
            .withCopyToContainer(Transferable.of(StackFiles.supervisor(SERVER_BIN, "pgbouncer", LISTEN, SERVER_PORT,
                CONFIG_DIR, DATA_DIR)), CONFIG_DIR + "/supervisor.sh")
            .waitingFor(new HostPortWaitStrategy().forPorts(SERVER_PORT, BOUNCER_PORT)
                .withStartupTimeout(Duration.ofMinutes(3)));
        container.start();
        ContainerPgBouncerStack stack = new ContainerPgBouncerStack(container);
        try {
            stack.awaitReady();
            stack.createAppUser();
        } catch (Exception | Error e) {
            stack.close();
            throw e;
        }
        return stack;
    }

    @Override
    protected String bouncerHostAndPort() {
        return container.getHost() + ":" + container.getMappedPort(BOUNCER_PORT);
    }

    @Override
    protected String serverHostAndPort() {
        return container.getHost() + ":" + container.getMappedPort(SERVER_PORT);
    }

    @Override
    protected String dataDir() {
        return DATA_DIR;
    }

    @Override
    protected String bouncerBinary() {
        return "pgbouncer";
    }

    @Override
    protected String serverBin() {
        return SERVER_BIN;
    }

    @Override
    protected String listenAddress() {
        return LISTEN;
    }

    @Override
    protected int serverPort() {
        return SERVER_PORT;
    }

    @Override
    protected String shell(String command) throws Exception {
        ExecResult result = container.execInContainer("sh", "-c", command);
        if (result.getExitCode() != 0) {
            throw new IllegalStateException("'" + command + "' exited with " + result.getExitCode() + ": "
                + result.getStdout() + result.getStderr() + "; see " + describe());
        }
        return result.getStdout();
    }

    @Override
    public String describe() {
        return "a container of Debian 12's postgresql-15 and pgbouncer (" + container.getContainerName()
            + "), logs in " + DATA_DIR + " inside it";
    }

    @Override
    public void close() {
        container.stop();
    }
}
