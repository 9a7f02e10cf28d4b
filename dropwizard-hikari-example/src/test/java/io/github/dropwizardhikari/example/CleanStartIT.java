package io.github.dropwizardhikari.example;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built jar, started as the README says on its embedded default, prints no WARN or ERROR line: a user's first
 * start is the first log they judge the library by. Runs after {@code package}, on the shaded jar itself, because
 * shading is what loses the version information some libraries check at start.
 */
class CleanStartIT {
    // Dropwizard's own layout ("WARN  [date] logger: ..."), logback's status lines ("|-WARN in ...") and the JVM's
    private static final Pattern WARNING_LINE = Pattern.compile("^(WARN|ERROR)\\b.*|.*\\|-(WARN|ERROR) .*|^WARNING: .*");
    private static final Duration START_LIMIT = Duration.ofSeconds(90);

    @Test
    void theShadedJarStartsOnItsEmbeddedDefaultWithoutAWarning() throws Exception {
        Path jar = Path.of("target/questions-app.jar");
        assertThat(jar).as("the shaded jar that `package` builds").exists();
        int applicationPort = freePort();
        int adminPort = freePort();
        Path output = Files.createTempFile(Path.of("target"), "clean-start-", ".log");
        Process app = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Ddw.server.applicationConnectors[0].port=" + applicationPort,
            "-Ddw.server.adminConnectors[0].port=" + adminPort,
            "-jar", jar.toString(), "server", "example.yml")
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
        try {
            assertThat(answersWithin(URI.create("http://127.0.0.1:" + applicationPort + "/questions?user=1"), app))
                .as("the example answers a request within %s; its output is in %s", START_LIMIT, output)
                .isEqualTo(200);
            assertThat(answersWithin(URI.create("http://127.0.0.1:" + adminPort + "/healthcheck"), app))
                .as("healthy").isEqualTo(200);
        } finally {
            app.destroy();
            app.waitFor(30, TimeUnit.SECONDS);
        }
        List<String> lines = Files.readAllLines(output, StandardCharsets.UTF_8);
        assertThat(lines).as("the application started (output in %s)", output)
            .anyMatch(line -> line.contains("Started application"));
        assertThat(lines).as("WARN and ERROR lines of a plain start (output in %s)", output)
            .filteredOn(line -> WARNING_LINE.matcher(line).matches())
            .isEmpty();
    }

    private static int answersWithin(URI uri, Process app) throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + START_LIMIT.toNanos();
        while (System.nanoTime() < deadline && app.isAlive()) {
            try {
                return client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
            } catch (IOException notYetListening) {
                Thread.sleep(250);
            }
        }
        return -1;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
