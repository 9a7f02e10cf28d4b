package io.github.dropwizardhikari.it.pgbouncer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The stack on this machine's own binaries: Debian's {@code pgbouncer} and PostgreSQL's {@code initdb} and
 * {@code pg_ctl}, on free ports, in a temporary directory that is deleted on close. Both binaries refuse to run as
 * root, so a root build runs them as the {@code postgres} user through {@code runuser}.
 */
final class LocalPgBouncerStack extends PgBouncerStack {
    private static final Logger LOGGER = LoggerFactory.getLogger(LocalPgBouncerStack.class);
    private static final String LISTEN = "127.0.0.1";
    private static final String SERVICE_USER = "postgres";
    private static final Set<Integer> GIVEN_PORTS = ConcurrentHashMap.newKeySet();
    // below the ports TcpProxy takes (20000-31999)
    private static final int LOW_PORTS_FROM = 10_000;
    private static final int LOW_PORTS = 10_000;

    private final Path dir;
    private final String bouncer;
    private final String serverBin;
    private final int serverPort;
    private final int bouncerPort;
    private final boolean asServiceUser;
    private final Process supervisor;

    private LocalPgBouncerStack(Path dir, String bouncer, String serverBin, int serverPort, int bouncerPort,
                                boolean asServiceUser, Process supervisor) {
        this.dir = dir;
        this.bouncer = bouncer;
        this.serverBin = serverBin;
        this.serverPort = serverPort;
        this.bouncerPort = bouncerPort;
        this.asServiceUser = asServiceUser;
        this.supervisor = supervisor;
    }

    /**
     * @throws IllegalStateException with what is missing, when the binaries are not installed
     */
    static LocalPgBouncerStack start() throws Exception {
        String bouncer = findBouncer();
        String serverBin = findServerBin();
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir = Files.createTempDirectory("it-pgbouncer-");
        if (root) {
            UserPrincipal owner = FileSystems.getDefault().getUserPrincipalLookupService()
                .lookupPrincipalByName(SERVICE_USER);
            Files.setOwner(dir, owner);
        }
        int serverPort = freePort();
        int bouncerPort = freePort();
        String path = dir.toString();
        Files.writeString(dir.resolve("pgbouncer.ini"), StackFiles.ini(LISTEN, serverPort, bouncerPort, path, path));
        Files.writeString(dir.resolve("userlist.txt"), StackFiles.userList());
        Files.writeString(dir.resolve("supervisor.sh"), StackFiles.supervisor(serverBin, bouncer, LISTEN, serverPort,
            path, path));
        ProcessBuilder builder = new ProcessBuilder(command(root, "sh " + path + "/supervisor.sh"))
            .redirectErrorStream(true).redirectOutput(dir.resolve("supervisor.log").toFile());
        LocalPgBouncerStack stack = new LocalPgBouncerStack(dir, bouncer, serverBin, serverPort, bouncerPort, root,
            builder.start());
        try {
            stack.awaitReady();
            stack.createAppUser();
        } catch (Exception | Error e) {
            stack.close();
            throw e;
        }
        return stack;
    }

    private static List<String> command(boolean asServiceUser, String shellCommand) {
        List<String> command = new ArrayList<>();
        if (asServiceUser) {
            command.addAll(List.of("runuser", "-u", SERVICE_USER, "--"));
        }
        command.addAll(List.of("sh", "-c", shellCommand));
        return command;
    }

    private static String findBouncer() {
        List<String> places = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        places.addAll(List.of("/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin"));
        for (String place : places) {
            File candidate = new File(place, "pgbouncer");
            if (candidate.canExecute()) {
                return candidate.getAbsolutePath();
            }
        }
        throw new IllegalStateException("the pgbouncer binary is not installed (looked in " + String.join(":", places)
            + ")");
    }

    private static String findServerBin() throws IOException {
        String configured = System.getProperty("it.postgres.bin", System.getenv("IT_POSTGRES_BIN"));
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                // the newest installed major version
                Path newest = versions.filter(version -> Files.isExecutable(version.resolve("bin/initdb")))
                    .max(Comparator.comparingInt(LocalPgBouncerStack::majorVersion)).orElse(null);
                if (newest != null) {
                    return newest.resolve("bin").toString();
                }
            }
        }
        throw new IllegalStateException("PostgreSQL's server binaries (initdb, pg_ctl) are not installed under "
            + debian + "; set -Dit.postgres.bin (IT_POSTGRES_BIN) to their directory");
    }

    private static int majorVersion(Path versionDir) {
        try {
            return Integer.parseInt(versionDir.getFileName().toString());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * A port below Linux's ephemeral range (32768-60999), not given before by this JVM. The tests stop and restart
     * PostgreSQL and PgBouncer while pools keep connecting to them: a connection to a port of that range where
     * nothing listens can be given that same port as its own and connect to itself, and the server could then not
     * listen there again.
     */
    private static int freePort() throws IOException {
        int offset = ThreadLocalRandom.current().nextInt(LOW_PORTS);
        for (int i = 0; i < LOW_PORTS; i++) {
            int port = LOW_PORTS_FROM + (offset + i) % LOW_PORTS;
            if (!GIVEN_PORTS.add(port)) {
                continue;
            }
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(LISTEN))) {
                return socket.getLocalPort();
            } catch (IOException taken) {
                // another program's: the next one
            }
        }
        throw new IOException("no free port in " + LOW_PORTS_FROM + "-" + (LOW_PORTS_FROM + LOW_PORTS - 1));
    }

    @Override
    protected String bouncerHostAndPort() {
        return LISTEN + ":" + bouncerPort;
    }

    @Override
    protected String serverHostAndPort() {
        return LISTEN + ":" + serverPort;
    }

    @Override
    protected String dataDir() {
        return dir.toString();
    }

    @Override
    protected String bouncerBinary() {
        return bouncer;
    }

    @Override
    protected String serverBin() {
        return serverBin;
    }

    @Override
    protected String listenAddress() {
        return LISTEN;
    }

    @Override
    protected int serverPort() {
        return serverPort;
    }

    @Override
    protected String shell(String command) throws Exception {
        Process process = new ProcessBuilder(command(asServiceUser, command)).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(90, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("'" + command + "' did not finish within 90 s");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException("'" + command + "' exited with " + process.exitValue() + ": " + output
                + "; see " + describe());
        }
        return output;
    }

    @Override
    public String describe() {
        return "a throwaway PostgreSQL cluster (" + serverBin + ", port " + serverPort + ") and PgBouncer on port "
            + bouncerPort + ", logs in " + dir;
    }

    @Override
    public void close() {
        try {
            Files.writeString(dir.resolve("stop"), "");
            shell(StackFiles.stopBouncer(dir.toString()) + " 2>/dev/null; " + serverBin + "/pg_ctl -D " + dir
                + "/pg -m immediate -w stop > /dev/null 2>&1; true");
            if (!supervisor.waitFor(10, TimeUnit.SECONDS)) {
                supervisor.destroyForcibly();
            }
            deleteRecursively(dir);
        } catch (Exception e) {
            LOGGER.warn("could not stop {} cleanly: {}", describe(), e.getMessage());
        }
    }

    private static void deleteRecursively(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
