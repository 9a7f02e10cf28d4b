package io.github.dropwizardhikari;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With the database down, {@code /healthcheck} names the pool's check unhealthy with the cause's message, in a page
 * of a few hundred bytes: no stack trace. The stack trace is in the log, once, when the check turns unhealthy.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class UnhealthyPoolReportTest {
    private static final String CHECK = "hikari.pool.ConnectivityCheck";
    private static final RefusedPort DOWN = refusedPort();

    // the application of RequestsWithoutTheDatabaseTest, starting with its database down (initialSize: 0)
    static final DropwizardAppExtension<RequestsWithoutTheDatabaseTest.App.Config> APP = new DropwizardAppExtension<>(
        RequestsWithoutTheDatabaseTest.App.class, ResourceHelpers.resourceFilePath("no-database-app.yml"),
        ConfigOverride.config("hikari.url", DOWN.h2Url()), ConfigOverride.config("hikari.minSize", "0"),
        ConfigOverride.config("hikari.initialSize", "0"));

    private static RefusedPort refusedPort() {
        try {
            return RefusedPort.take();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @AfterAll
    static void releasePort() throws IOException {
        DOWN.close();
    }

    private static HttpResponse<String> healthPage(HttpClient client) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + APP.getAdminPort()
            + "/healthcheck")).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void anUnhealthyPoolGivesTheCausesMessageAndLogsItsStackOnce() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(PoolHealthChecks.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        logger.addAppender(logged);
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        try {
            List<HttpResponse<String>> pages = List.of(healthPage(client), healthPage(client));

            for (HttpResponse<String> page : pages) {
                assertThat(page.statusCode()).as(page.body()).isEqualTo(500);
                JsonNode check = Jackson.newObjectMapper().readTree(page.body()).get(CHECK);
                assertThat(check.get("healthy").asBoolean()).as(page.body()).isFalse();
                assertThat(check.has("error")).as("a stack trace in %s", page.body()).isFalse();
                assertThat(check.get("message").asText()).as(page.body())
                    .startsWith("hikari - Connection is not available, request timed out after ");
                assertThat(page.body()).doesNotContain("stack").doesNotContain("\tat ");
                // the production user's page with Tomcat's pool: 218 bytes; with stack traces: 7.8 KB
                assertThat(page.body().length()).as(page.body()).isLessThan(1_000);
            }
            List<ILoggingEvent> stacks = logged.list.stream().filter(event -> event.getThrowableProxy() != null)
                .toList();
            assertThat(stacks).as("the stack trace logged once for two reads of the page").singleElement()
                .satisfies(event -> {
                    assertThat(event.getLevel()).isEqualTo(Level.WARN);
                    assertThat(event.getFormattedMessage()).startsWith("Health check " + CHECK + " is unhealthy: ");
                });
        } finally {
            logger.detachAppender(logged);
        }
    }

    @Test
    void theMessageIsTheErrorsFollowedByItsRootCausesWhenThatSaysMore() {
        SQLException refused = new SQLException("pool down", new IOException("wrapped",
            new ConnectException("Connection refused")));

        assertThat(PoolHealthChecks.message(refused)).isEqualTo("pool down: Connection refused");
        assertThat(PoolHealthChecks.message(new SQLException("Connection refused",
            new ConnectException("Connection refused")))).isEqualTo("Connection refused");
        assertThat(PoolHealthChecks.message(new IllegalStateException())).isEqualTo("java.lang.IllegalStateException");
    }
}
