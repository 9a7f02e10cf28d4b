package io.github.dropwizardhikari.example;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The shaded jar that {@code package} builds, started as a user starts it ({@code java -jar ... server
 * example.yml}) on free ports, with {@code -Ddw.} overrides; its output goes to a file under {@code target/}.
 */
final class ExampleJar implements AutoCloseable {
    private static final String JAR_PROPERTY = "example.jar";
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Set<Integer> GIVEN_PORTS = ConcurrentHashMap.newKeySet();
    // below the ephemeral range, and below the ports RefusedPort plays a stopped database on
    private static final int LOW_PORTS_FIRST = 10_000;
    private static final int LOW_PORTS_LAST = 19_999;

    final int applicationPort;
    final int adminPort;
    final Path output;
    private final Process process;

    /**
     * @return the shaded jar, as failsafe names it after {@code package}; a test that selects an integration test by
     * name in surefire's run, before {@code package}, is skipped
     */
    static Path jar() {
        String jar = System.getProperty(JAR_PROPERTY);
        assumeThat(jar).as("the built jar (%s), which failsafe names after package", JAR_PROPERTY).isNotNull();
        return Path.of(jar);
    }

    ExampleJar(String... overrides) throws IOException {
        Path jar = jar();
        applicationPort = freePort();
        adminPort = freePort();
        output = Files.createTempFile(Path.of("target"), "example-jar-", ".log");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
            .toString(), "-Ddw.server.applicationConnectors[0].port=" + applicationPort,
            "-Ddw.server.adminConnectors[0].port=" + adminPort));
        for (String override : overrides) {
            // a JVM flag as it is; anything else is a configuration override
            command.add(override.startsWith("-") ? override : "-Ddw." + override);
        }
        command.addAll(List.of("-jar", jar.toString(), "server", "example.yml"));
        process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    }

    /** The status of {@code GET path} on the application port, waiting up to {@code limit} for it to listen. */
    int application(String path, Duration limit) throws Exception {
        return get(URI.create("http://127.0.0.1:" + applicationPort + path), limit).statusCode();
    }

    /** {@code GET path} on the admin port, waiting up to {@code limit} for it to listen. */
    HttpResponse<String> admin(String path, Duration limit) throws Exception {
        return get(URI.create("http://127.0.0.1:" + adminPort + path), limit);
    }

    /** @return the process's exit status, once it has ended, within {@code limit} */
    int exitStatus(Duration limit) throws InterruptedException {
        if (!process.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("the example was still running after " + limit + " (output in " + output
                + ")");
        }
        return process.exitValue();
    }

    List<String> outputLines() throws IOException {
        return Files.readAllLines(output, StandardCharsets.UTF_8);
    }

    private HttpResponse<String> get(URI uri, Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        IOException last = null;
        while (System.nanoTime() < deadline && process.isAlive()) {
            try {
                return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            } catch (IOException notYetListening) {
                last = notYetListening;
                Thread.sleep(250);
            }
        }
        throw new IllegalStateException("the example did not answer " + uri + " within " + limit + " (alive: "
            + process.isAlive() + "; output in " + output + ")", last);
    }

    /**
     * A port free now and not handed out before by this JVM: the system may give a port it just gave again, and a
     * test's database port equal to the application's own connector hangs the application's start (the pool's first
     * attempt waits on a socket that Jetty listens on but does not read until the start completes; seen once as a
     * start that never answered {@code /ping}). It lies below Linux's ephemeral range (32768-60999): the test
     * connects to it again and again until the application listens, and a connection to a port of that range where
     * nothing listens yet can be given that same port as its own and connect to itself.
     */
    static int freePort() throws IOException {
        int count = LOW_PORTS_LAST - LOW_PORTS_FIRST + 1;
        int offset = ThreadLocalRandom.current().nextInt(count);
        for (int i = 0; i < count; i++) {
            int port = LOW_PORTS_FIRST + (offset + i) % count;
            if (!GIVEN_PORTS.add(port)) {
                continue;
            }
            try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return socket.getLocalPort();
            } catch (IOException taken) {
                // another process's: the next one
            }
        }
        throw new IOException("no free port between " + LOW_PORTS_FIRST + " and " + LOW_PORTS_LAST);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
