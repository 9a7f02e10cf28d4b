package io.github.dropwizardhikari.example;

import io.github.dropwizardhikari.example.db.SchemaMigration;
import org.h2.tools.Server;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built jar with its database not there yet, under the two settings a Dropwizard service uses to say "start
 * anyway": it starts, {@code /healthcheck} answers unhealthy naming the cause (at once, not after the pool's 30 s
 * wait; twenty probes at once, each within a tenth of it, once the pool has tried the database), and once the database
 * answers the application serves from it without a restart. The example names the fault-handling extension, which
 * does this.
 */
class StartWithTheDatabaseDownIT {
    private static final Duration START_LIMIT = Duration.ofSeconds(90);

    @ParameterizedTest
    @ValueSource(strings = {"hikari.initialSize=0", "hikari.ignoreExceptionOnPreLoad=true"})
    void startsUnhealthyAndServesOnceTheDatabaseAnswers(String startAnyway) throws Exception {
        RefusedPort databasePort = RefusedPort.take();
        String url = "jdbc:h2:tcp://127.0.0.1:" + databasePort.port + "/mem:late;DB_CLOSE_DELAY=-1";
        // H2's client retries a refused connection for about 1.3 s by itself; PostgreSQL's and MariaDB's do not.
        // Borrows and checks may wait 30 s here, so an answer in a few seconds shows that nothing waited for them.
        try (databasePort; ExampleJar app = new ExampleJar(startAnyway, "hikari.minSize=0", "hikari.url=" + url,
            "hikari.maxWaitForConnection=30s", "hikari.validationQueryTimeout=30s",
            "seed.migrateOnStart=false", "seed.rows=0", "-Dh2.socketConnectRetry=0")) {
            app.admin("/ping", START_LIMIT);

            // With initialSize 0 the pool makes no attempt at start: the first check's borrow (Dropwizard's own
            // Jdbi check borrows) waits for the pool's first attempt, not for maxWaitForConnection (30 s here).
            long firstAsked = System.nanoTime();
            HttpResponse<String> first = app.admin("/healthcheck", START_LIMIT);
            assertThat(first.statusCode()).as("unhealthy while the database is down (output in %s)", app.output)
                .isEqualTo(500);
            long firstMillis = Duration.ofNanos(System.nanoTime() - firstAsked).toMillis();
            // the checks' own durations are in the page (each check's "duration", in ms)
            assertThat(firstMillis).as("the first health check, which finds a pool that has not tried yet, answered "
                    + "in %d ms (the pool's wait: 30,000 ms; output in %s); the page: %s", firstMillis, app.output,
                    first.body())
                .isLessThan(10_000);
            assertThat(first.body()).contains("Connection refused");
            // from then on the pool knows: twenty probes at once are all answered in a tenth of the pool's wait
            List<Callable<String>> probes = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                probes.add(() -> {
                    long asked = System.nanoTime();
                    HttpResponse<String> health = app.admin("/healthcheck", START_LIMIT);
                    long answeredMillis = Duration.ofNanos(System.nanoTime() - asked).toMillis();
                    assertThat(health.statusCode()).isEqualTo(500);
                    assertThat(health.body()).contains("Connection refused");
                    assertThat(answeredMillis).as("a health check answered from what the pool knows in %d ms (the "
                            + "pool's wait: 30,000 ms; output in %s); the page: %s", answeredMillis, app.output,
                            health.body())
                        .isLessThan(3_000);
                    return "answered in " + answeredMillis + " ms";
                });
            }
            ExecutorService callers = Executors.newFixedThreadPool(20);
            try {
                for (Future<String> answer : callers.invokeAll(probes)) {
                    assertThat(answer.get()).startsWith("answered in");
                }
            } finally {
                callers.shutdownNow();
            }

            databasePort.release();
            Server database = Server.createTcpServer("-tcpPort", String.valueOf(databasePort.port), "-ifNotExists")
                .start();
            try {
                try (Connection connection = DriverManager.getConnection(url, "sa", "")) {
                    SchemaMigration.migrate(connection);
                }
                assertThat(healthyWithin(app, Duration.ofSeconds(10))).as("healthy once the database answers")
                    .isTrue();
                assertThat(app.application("/questions?user=1", START_LIMIT)).isEqualTo(200);
            } finally {
                database.stop();
            }
        }
    }

    /**
     * {@code example.yml} as it is (it migrates and seeds at start) with its database down and the pool set to start
     * without it: the application says in one ERROR line which setting needs the database and why it cannot have it,
     * and exits with status 1, without a stack trace.
     */
    @Test
    void withTheSeedOnItSaysInOneErrorLineWhyItCannotStart() throws Exception {
        RefusedPort databasePort = RefusedPort.take();
        String url = "jdbc:h2:tcp://127.0.0.1:" + databasePort.port + "/mem:down;DB_CLOSE_DELAY=-1";
        try (databasePort; ExampleJar app = new ExampleJar("hikari.initialSize=0", "hikari.minSize=0",
            "hikari.url=" + url, "-Dh2.socketConnectRetry=0")) {
            assertThat(app.exitStatus(START_LIMIT)).as("exit status (output in %s)", app.output).isEqualTo(1);
            List<String> lines = app.outputLines();

            assertThat(lines).as("the output: %s", lines).filteredOn(line -> line.startsWith("ERROR"))
                .singleElement().asString()
                .contains("Cannot start: seed.migrateOnStart: true (migrate the schema at start) needs the database, "
                    + "which does not answer (", "Connection refused", "set seed.migrateOnStart: false and seed.rows: 0");
            assertThat(lines).as("no stack trace: %s", lines).noneMatch(line -> line.startsWith("\tat "));
        }
    }

    private static boolean healthyWithin(ExampleJar app, Duration limit) throws Exception {
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            if (app.admin("/healthcheck", limit).statusCode() == 200) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }
}
