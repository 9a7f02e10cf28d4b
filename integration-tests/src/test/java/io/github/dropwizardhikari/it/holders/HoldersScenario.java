package io.github.dropwizardhikari.it.holders;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import io.dropwizard.testing.DropwizardTestSupport;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import org.slf4j.LoggerFactory;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link HoldersItApp} on PostgreSQL with the holders extension, driven past its pools' size, with what it logged:
 * the scenarios the platform-thread and virtual-thread suites share. Each step prints what it saw, so a failure
 * on a busy machine shows the whole session.
 */
final class HoldersScenario implements AutoCloseable {
    static final String POOL = "postgres";
    static final String SLOW = "GET /reports/{id}";
    static final String FAST = "GET /orders";
    private static final int POOL_SIZE = 4;
    private static final String HOLDERS_LOGGER = "io.github.dropwizardhikari.holders.PoolHolds";
    private static final String ERRORS_LOGGER = "io.dropwizard.jersey.errors.LoggingExceptionMapper";

    private final Path config;
    private final DropwizardTestSupport<HoldersItApp.Config> app;
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final ExecutorService clients = Executors.newFixedThreadPool(32);
    private final HttpClient http = HttpClient.newBuilder().executor(clients).connectTimeout(Duration.ofSeconds(10))
        .build();

    /** @param extensions the block's {@code extensions:} entries, in any order */
    HoldersScenario(List<String> extensions, boolean virtualThreads) throws Exception {
        TestDatabase database = TestDatabases.postgres();
        config = Files.createTempFile("holders", ".yml");
        StringBuilder entries = new StringBuilder();
        extensions.forEach(type -> entries.append("    - type: ").append(type).append('\n'));
        Files.writeString(config, "hikari:\n"
            + "  url: " + database.url() + "\n"
            + "  user: " + database.user() + "\n"
            + "  password: " + database.password() + "\n"
            + "  maxSize: " + POOL_SIZE + "\n"
            + "  minSize: " + POOL_SIZE + "\n"
            + "  maxWaitForConnection: 1 second\n"
            + "  leakDetectionThreshold: 3 seconds\n"
            + "  extensions:\n" + entries
            + "server:\n"
            + "  enableVirtualThreads: " + virtualThreads + "\n"
            + "  applicationConnectors:\n    - type: http\n      port: 0\n"
            + "  adminConnectors:\n    - type: http\n      port: 0\n  requestLog:\n    appenders: []\n"
            + "logging:\n  level: WARN\n");
        app = new DropwizardTestSupport<>(HoldersItApp.class, config.toString());
        app.before();
        log.start();
        ((Logger) LoggerFactory.getLogger(HOLDERS_LOGGER)).addAppender(log);
        ((Logger) LoggerFactory.getLogger(ERRORS_LOGGER)).addAppender(log);
    }

    /** @return the most connections the pool lends: its {@code MaxConnections}, once it runs */
    private int lent() {
        com.codahale.metrics.Gauge<?> max = app.getEnvironment().metrics().getGauges()
            .get(POOL + ".pool.MaxConnections");
        return max == null ? POOL_SIZE : ((Number) max.getValue()).intValue();
    }

    /**
     * Twelve 2 s requests on a pool of 4, then 5 ms requests until three borrows have timed out (the 2 s requests
     * that wait past the 1 s timeout time out too): the timeout's message,
     * the log line, the admin view and the metrics each name the slow endpoint's template first.
     */
    void anExhaustedPoolNamesItsSlowEndpointFirst() throws Exception {
        List<CompletableFuture<HttpResponse<String>>> slow = new ArrayList<>();
        for (int i = 0; i < 3 * POOL_SIZE; i++) {
            slow.add(getAsync("/reports/" + i));
        }
        await("the pool's connections are held by " + SLOW,
            () -> holdersView().contains("  " + SLOW + ": " + lent() + " connections"));
        // fault-handling's session check keeps one connection of maxSize for itself on PostgreSQL
        int lent = lent();

        String view = holdersView();
        System.out.println("pool-holders?pool=" + POOL + ":\n" + view);
        List<String> lines = view.lines().toList();
        assertThat(lines.get(0)).isEqualTo("pool: " + POOL);
        assertThat(lines.get(2)).isEqualTo("holders, longest first:");
        assertThat(lines.get(3)).startsWith("  " + SLOW + ": " + lent + " connections, longest ");
        assertThat(lines).contains("held now, longest first:");
        assertThat(lines.stream().filter(line -> line.matches("  \\d+\\.\\d s  .*"))).hasSize(lent)
            .allSatisfy(line -> assertThat(line).contains("  " + SLOW + "  thread \""));
        assertThat(view).doesNotContain(TestDatabases.postgres().password().isEmpty() ? "\u0000"
            : TestDatabases.postgres().password());

        List<Integer> fastStatuses = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (timeoutMessages().size() < 3 && System.nanoTime() < deadline) {
            List<CompletableFuture<HttpResponse<String>>> fast = new ArrayList<>();
            for (int i = 0; i < POOL_SIZE; i++) {
                fast.add(getAsync("/orders"));
            }
            fast.forEach(response -> fastStatuses.add(response.join().statusCode()));
        }
        System.out.println("GET /orders while the pool was exhausted answered " + fastStatuses);
        List<String> messages = timeoutMessages();
        assertThat(messages).as("timeouts").hasSizeGreaterThanOrEqualTo(3);
        System.out.println("the timeout's message:\n" + messages.get(0));
        for (String message : messages) {
            List<String> messageLines = message.lines().toList();
            assertThat(messageLines.get(0)).matches(POOL + " - Connection is not available, request timed out after "
                + "\\d+ms.*");
            assertThat(messageLines.get(1)).isEqualTo("Holders now, longest first:");
            assertThat(messageLines.get(2)).startsWith("  " + SLOW + ": ");
        }
        List<String> reports = warnings("borrow(s) timed out");
        System.out.println("logged:\n" + String.join("\n", reports));
        // once per pool per minute however many timed out
        assertThat(reports).hasSize(1);
        assertThat(reports.get(0).lines().skip(1).findFirst()).hasValueSatisfying(line -> assertThat(line)
            .startsWith("  " + SLOW + ": "));

        // a 2 s request that waited past the 1 s timeout failed too
        long slowServed = slow.stream().filter(response -> response.join().statusCode() == 200).count();
        for (int i = 0; i < 5; i++) {
            assertThat(getAsync("/orders").join().statusCode()).isEqualTo(200);
        }
        MetricRegistry metrics = app.getEnvironment().metrics();
        String prefix = POOL + ".pool.Holders.";
        List<Map.Entry<String, Histogram>> byMeanHold = metrics.getHistograms((name, metric) ->
                name.startsWith(prefix) && name.endsWith(".Usage")).entrySet().stream()
            .sorted(Comparator.comparingDouble((Map.Entry<String, Histogram> entry) ->
                entry.getValue().getSnapshot().getMean()).reversed())
            .toList();
        byMeanHold.forEach(entry -> System.out.printf("%s: count %d, mean %.1f ms, max %d ms%n", entry.getKey(),
            entry.getValue().getCount(), entry.getValue().getSnapshot().getMean(),
            entry.getValue().getSnapshot().getMax()));
        assertThat(byMeanHold.get(0).getKey()).isEqualTo(prefix + SLOW + ".Usage");
        assertThat(byMeanHold.get(0).getValue().getSnapshot().getMin())
            .isGreaterThanOrEqualTo(HoldersItApp.SLOW_MILLIS);
        assertThat(metrics.counter(prefix + SLOW + ".Borrows").getCount()).isEqualTo(slowServed);
        assertThat(metrics.counter(prefix + FAST + ".Borrows").getCount()).isGreaterThanOrEqualTo(5);
        assertThat(metrics.getNames()).filteredOn(name -> name.startsWith(prefix))
            .noneMatch(name -> name.matches(".*/reports/\\d.*"));
    }

    /** A request that holds its connection past {@code leakDetectionThreshold} is named in a warning, once. */
    void aLeakNamesItsEndpoint() {
        assertThat(getAsync("/leak/17").join().statusCode()).isEqualTo(200);
        List<String> leaks = warnings("past leakDetectionThreshold");
        System.out.println("logged:\n" + String.join("\n", leaks));
        assertThat(leaks).filteredOn(line -> line.contains("GET /leak/{id}")).singleElement()
            .satisfies(line -> assertThat(line).startsWith("Pool hikari: a connection borrowed by GET /leak/{id} on "
                + "thread \""));
    }

    /** Jdbi, Hibernate's {@code @UnitOfWork} and plain JDBC: each borrow counts under its resource template. */
    void everyClientsBorrowsCountUnderItsTemplate() {
        for (String path : List.of("/reports/1", "/notes/1", "/notes/2", "/jdbc/1", "/jdbc/2")) {
            assertThat(getAsync(path).join().statusCode()).as(path).isEqualTo(200);
        }
        MetricRegistry metrics = app.getEnvironment().metrics();
        assertThat(metrics.counter("postgres.pool.Holders.GET /reports/{id}.Borrows").getCount()).isEqualTo(1);
        assertThat(metrics.counter("hibernate.pool.Holders.GET /notes/{id}.Borrows").getCount()).isEqualTo(2);
        assertThat(metrics.counter("hikari.pool.Holders.GET /jdbc/{id}.Borrows").getCount()).isEqualTo(2);
    }

    private String holdersView() {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.getAdminPort()
            + "/tasks/pool-holders?pool=" + POOL)).POST(HttpRequest.BodyPublishers.noBody())
            .timeout(Duration.ofSeconds(20)).build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString()).body();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private CompletableFuture<HttpResponse<String>> getAsync(String path) {
        return http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.getLocalPort() + path))
            .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** @return the messages of the borrow timeouts the application's requests failed with */
    private List<String> timeoutMessages() {
        List<String> messages = new ArrayList<>();
        for (ILoggingEvent event : List.copyOf(log.list)) {
            for (IThrowableProxy cause = event.getThrowableProxy(); cause != null; cause = cause.getCause()) {
                if (cause.getClassName().equals("java.sql.SQLTransientConnectionException")) {
                    messages.add(cause.getMessage());
                }
            }
        }
        return messages;
    }

    private List<String> warnings(String containing) {
        return List.copyOf(log.list).stream().filter(event -> event.getLoggerName().equals(HOLDERS_LOGGER))
            .map(ILoggingEvent::getFormattedMessage).filter(message -> message.contains(containing)).toList();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
    }

    @Override
    public void close() throws Exception {
        try {
            ((Logger) LoggerFactory.getLogger(HOLDERS_LOGGER)).detachAppender(log);
            ((Logger) LoggerFactory.getLogger(ERRORS_LOGGER)).detachAppender(log);
            app.after();
            clients.shutdownNow();
        } finally {
            Files.deleteIfExists(config);
        }
    }
}
