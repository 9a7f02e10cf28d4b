package io.github.dropwizardhikari.it.faults;

import io.github.dropwizardhikari.it.db.DatabaseKind;
import io.github.dropwizardhikari.it.db.TestDatabase;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real PostgreSQL 15 primary and its streaming standby, made for one test: {@code initdb}, {@code pg_basebackup
 * -R}, each server on a free port of 127.0.0.1, run as the {@code postgres} user when the build runs as root (the
 * server refuses root). {@link #promoteStandby()} is the failover; {@link #close()} stops both and removes their files.
 */
final class PrimaryStandbyPair implements AutoCloseable {
    private static final Path BIN = Path.of(System.getProperty("it.postgresBin", "/usr/lib/postgresql/15/bin"));
    private static final String SERVICE_USER = "postgres";

    private final Path directory;
    private final int primaryPort;
    private final int standbyPort;
    private boolean primaryRunning;
    private boolean standbyRunning;

    private PrimaryStandbyPair(Path directory, int primaryPort, int standbyPort) {
        this.directory = directory;
        this.primaryPort = primaryPort;
        this.standbyPort = standbyPort;
    }

    static PrimaryStandbyPair start() throws IOException, InterruptedException {
        Path directory = Files.createTempDirectory("it-pair");
        if (asRoot()) {
            run(List.of("chown", SERVICE_USER, directory.toString()), directory.resolve("commands.log"));
        }
        PrimaryStandbyPair pair = new PrimaryStandbyPair(directory, freePort(), freePort());
        try {
            pair.init();
        } catch (IOException | InterruptedException | RuntimeException e) {
            pair.close();
            throw e;
        }
        return pair;
    }

    private void init() throws IOException, InterruptedException {
        Path primary = directory.resolve("primary");
        pg("initdb", "-D", primary.toString(), "-U", "postgres", "--auth=trust", "-N");
        // no fsync: a test's server, thrown away after it; the socket directory is the pair's own
        String settings = "\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '" + directory + "'\n"
            + "fsync = off\n";
        // root may append to the postgres user's file; its owner stays
        Files.writeString(primary.resolve("postgresql.conf"), settings, StandardCharsets.UTF_8,
            StandardOpenOption.APPEND);
        pg("pg_ctl", "-D", primary.toString(), "-o", "-p " + primaryPort, "-l",
            directory.resolve("primary.log").toString(), "-w", "start");
        primaryRunning = true;
        Path standby = directory.resolve("standby");
        pg("pg_basebackup", "-h", "127.0.0.1", "-p", Integer.toString(primaryPort), "-U", "postgres", "-D",
            standby.toString(), "-R", "-X", "stream");
        pg("pg_ctl", "-D", standby.toString(), "-o", "-p " + standbyPort, "-l",
            directory.resolve("standby.log").toString(), "-w", "start");
        standbyRunning = true;
    }

    TestDatabase primary() {
        return database(primaryPort);
    }

    TestDatabase standby() {
        return database(standbyPort);
    }

    /** Both servers, the primary first, with {@code targetServerType=primary}: pgJDBC connects to the primary. */
    TestDatabase multiHost() {
        return new TestDatabase(DatabaseKind.POSTGRES, "jdbc:postgresql://127.0.0.1:" + primaryPort + ",127.0.0.1:"
            + standbyPort + "/postgres?targetServerType=primary", "postgres", "", "a primary/standby pair");
    }

    int primaryPort() {
        return primaryPort;
    }

    /** Stops the primary at once, as a crash does: no checkpoint, its sessions cut. */
    void crashPrimary() throws IOException, InterruptedException {
        pg("pg_ctl", "-D", directory.resolve("primary").toString(), "-m", "immediate", "stop");
        primaryRunning = false;
    }

    void promoteStandby() throws IOException, InterruptedException {
        pg("pg_ctl", "-D", directory.resolve("standby").toString(), "-w", "promote");
    }

    private static TestDatabase database(int port) {
        return new TestDatabase(DatabaseKind.POSTGRES, "jdbc:postgresql://127.0.0.1:" + port + "/postgres",
            "postgres", "", "a primary/standby pair");
    }

    @Override
    public void close() throws IOException, InterruptedException {
        if (standbyRunning) {
            pg("pg_ctl", "-D", directory.resolve("standby").toString(), "-m", "immediate", "stop");
        }
        if (primaryRunning) {
            pg("pg_ctl", "-D", directory.resolve("primary").toString(), "-m", "immediate", "stop");
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
    }

    private void pg(String program, String... arguments) throws IOException,
        InterruptedException {
        List<String> command = new ArrayList<>();
        if (asRoot()) {
            command.addAll(List.of("runuser", "-u", SERVICE_USER, "--"));
        }
        command.add(BIN.resolve(program).toString());
        command.addAll(List.of(arguments));
        run(command, directory.resolve("commands.log"));
    }

    // the output goes to a file, not a pipe: a server started by pg_ctl must not hold the test's pipe open
    private static void run(List<String> command, Path log) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).directory(Path.of("/tmp").toFile()).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " failed; its output: "
                + Files.readString(log, StandardCharsets.UTF_8));
        }
    }

    private static boolean asRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
