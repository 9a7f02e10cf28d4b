package io.github.dropwizardhikari.it.credentials;

import io.dropwizard.testing.DropwizardTestSupport;
import io.github.dropwizardhikari.it.db.PasswordCheckingPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Rotating a role's password under a running application: the password changes in PostgreSQL and in the file
 * the pool reads (the {@code credential-files} extension's {@code passwordFile}); requests keep succeeding on the
 * connections already open, {@code pool-evict} (the {@code operations} extension's task) retires those, and the
 * pool's new connections log in with the new password.
 *
 * <p>On a PostgreSQL server of the test's own that checks passwords ({@link PasswordCheckingPostgres}).</p>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CredentialRotationPostgresIT {
    private static final String ROLE = "rotation_app";
    private static final String FIRST = "first-Secret-1";
    private static final String SECOND = "second-Secret-2";
    private static final int CLIENTS = 4;
    private static final Logger LOGGER = LoggerFactory.getLogger(CredentialRotationPostgresIT.class);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private PasswordCheckingPostgres postgres;
    private Path secrets;
    private Path passwordFile;
    private Path config;
    private DropwizardTestSupport<RotationApp.Config> app;

    @BeforeAll
    void start() throws Exception {
        long started = System.nanoTime();
        postgres = PasswordCheckingPostgres.start();
        postgres.execute("CREATE ROLE " + ROLE + " LOGIN PASSWORD '" + FIRST + "'");
        secrets = Files.createTempDirectory("rotation-secrets");
        Path userFile = Files.writeString(secrets.resolve("username"), ROLE + "\n");
        passwordFile = Files.writeString(secrets.resolve("password"), FIRST + "\n");
        config = Files.createTempFile("rotation", ".yml");
        Files.writeString(config, "hikari:\n"
            + "  url: " + postgres.url() + "\n"
            + "  maxSize: " + CLIENTS + "\n"
            + "  maxWaitForConnection: 5 seconds\n"
            + "  extensions:\n"
            + "    - type: operations\n"
            + "      changeTasks: [pool-evict]\n"
            + "    - type: credential-files\n"
            + "      userFile: " + userFile + "\n"
            + "      passwordFile: " + passwordFile + "\n"
            + "      lifetime: 1 hour\n"
            + "server:\n  applicationConnectors:\n    - type: http\n      port: 0\n"
            + "  adminConnectors:\n    - type: http\n      port: 0\n  requestLog:\n    appenders: []\n"
            + "logging:\n  level: WARN\n");
        app = new DropwizardTestSupport<>(RotationApp.class, config.toString());
        app.before();
        LOGGER.warn("Rotation: PostgreSQL and the application started in {} ms", millisSince(started));
    }

    private static long millisSince(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
    }

    @AfterAll
    void stop() throws Exception {
        try {
            if (app != null) {
                app.after();
            }
        } finally {
            if (postgres != null) {
                postgres.close();
            }
            if (config != null) {
                Files.deleteIfExists(config);
            }
            if (secrets != null) {
                try (var files = Files.list(secrets)) {
                    for (Path file : files.toList()) {
                        Files.delete(file);
                    }
                }
                Files.delete(secrets);
            }
        }
    }

    private Set<Integer> serverProcessesOfRole() throws SQLException {
        Set<Integer> pids = new HashSet<>();
        try (Connection admin = postgres.superuser(); Statement statement = admin.createStatement();
             ResultSet rows = statement.executeQuery("SELECT pid FROM pg_stat_activity WHERE usename = '" + ROLE
                 + "'")) {
            while (rows.next()) {
                pids.add(rows.getInt(1));
            }
        }
        return pids;
    }

    private HttpResponse<String> send(String method, int port, String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(20))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aRotatedPasswordIsUsedByNewConnectionsAndNoRequestFails() throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger served = new AtomicInteger();
        List<String> failures = new ArrayList<>();
        Set<Integer> backends = ConcurrentHashMap.newKeySet();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        List<Future<?>> loops = new ArrayList<>();
        for (int i = 0; i < CLIENTS; i++) {
            loops.add(clients.submit(() -> {
                while (running.get()) {
                    try {
                        HttpResponse<String> response = send("GET", app.getLocalPort(), "/who");
                        if (response.statusCode() != 200 || !response.body().startsWith(ROLE + " ")) {
                            synchronized (failures) {
                                failures.add(response.statusCode() + " " + response.body());
                            }
                        } else {
                            served.incrementAndGet();
                            backends.add(Integer.parseInt(response.body().substring(ROLE.length() + 1).trim()));
                        }
                    } catch (Exception e) {
                        synchronized (failures) {
                            failures.add(e.toString());
                        }
                    }
                }
            }));
        }
        try {
            awaitServed(served, 50);
            Set<Integer> before = serverProcessesOfRole();
            assertThat(before).hasSize(CLIENTS);

            // the secret manager writes the new file (atomically, as Kubernetes does), then the role changes
            Path next = Files.writeString(secrets.resolve("password.next"), SECOND + "\n");
            Files.move(next, passwordFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            postgres.execute("ALTER ROLE " + ROLE + " PASSWORD '" + SECOND + "'");
            assertThatThrownBy(() -> postgres.login(ROLE, FIRST).close()).isInstanceOf(SQLException.class)
                .hasMessageContaining("password authentication failed");
            postgres.login(ROLE, SECOND).close();
            awaitServed(served, served.get() + 50);
            assertThat(serverProcessesOfRole()).as("open connections stay open after the change")
                .containsAll(before);

            long evicted = System.nanoTime();
            HttpResponse<String> evict = send("POST", app.getAdminPort(), "/tasks/pool-evict");
            assertThat(evict.statusCode()).isEqualTo(200);
            assertThat(evict.body()).contains("pool rotation: evicted every connection");

            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            // until the old connections are gone and the pool has opened new ones (it does so in the background)
            while (!retired(serverProcessesOfRole(), before) && System.nanoTime() < deadline) {
                awaitServed(served, served.get() + 10);
            }
            Set<Integer> after = serverProcessesOfRole();
            LOGGER.warn("Rotation: old connections gone {} ms after pool-evict; {} requests served so far",
                millisSince(evicted), served.get());
            assertThat(after).as("the old connections are gone, new ones are open").isNotEmpty()
                .doesNotContainAnyElementsOf(before);
            backends.clear();
            awaitServed(served, served.get() + 50);
            assertThat(backends).as("requests are served by the new connections").isNotEmpty()
                .doesNotContainAnyElementsOf(before);
        } finally {
            running.set(false);
            for (Future<?> loop : loops) {
                loop.get(30, TimeUnit.SECONDS);
            }
            clients.shutdown();
        }
        LOGGER.warn("Rotation: {} requests, {} failed", served.get(), failures.size());
        assertThat(failures).as("failed requests").isEmpty();
    }

    private static boolean retired(Set<Integer> now, Set<Integer> before) {
        return !now.isEmpty() && now.stream().noneMatch(before::contains);
    }

    private static void awaitServed(AtomicInteger served, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (served.get() < count && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(10);
        }
        assertThat(served.get()).as("requests served within 30 s").isGreaterThanOrEqualTo(count);
    }
}
