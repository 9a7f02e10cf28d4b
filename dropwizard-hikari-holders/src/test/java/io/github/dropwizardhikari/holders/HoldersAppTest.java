package io.github.dropwizardhikari.holders;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(DropwizardExtensionsSupport.class)
class HoldersAppTest {
    private static final DropwizardAppExtension<HoldersApp.Config> APP = new DropwizardAppExtension<>(
        HoldersApp.class, ResourceHelpers.resourceFilePath("holders-app.yml"));

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void aRequestsBorrowsCountUnderItsResourceTemplateNeverItsPath() throws Exception {
        MetricRegistry metrics = APP.getEnvironment().metrics();
        long byId = metrics.counter("hikari.pool.Holders.GET /people/{id}.Borrows").getCount();
        long all = metrics.counter("hikari.pool.Holders.GET /people.Borrows").getCount();
        for (String id : List.of("123", "456")) {
            assertThat(get("/people/" + id + "?millis=1").statusCode()).isEqualTo(200);
        }
        assertThat(get("/people?millis=1").statusCode()).isEqualTo(200);

        assertThat(metrics.counter("hikari.pool.Holders.GET /people/{id}.Borrows").getCount()).isEqualTo(byId + 2);
        assertThat(metrics.counter("hikari.pool.Holders.GET /people.Borrows").getCount()).isEqualTo(all + 1);
        assertThat(metrics.getNames()).noneMatch(name -> name.contains("123") || name.contains("456"));
    }

    @Test
    void anAdminTasksBorrowsCountUnderItsName() throws Exception {
        assertThat(postTask("borrowing").statusCode()).isEqualTo(200);
        assertThat(APP.getEnvironment().metrics().counter("hikari.pool.Holders.task \"borrowing\".Borrows").getCount())
            .isEqualTo(1);
    }

    @Test
    void poolHoldersListsTheHoldsNowLongestFirstWithTheirStacksWhenAsked() throws Exception {
        CompletableFuture<HttpResponse<String>> slow =
            CompletableFuture.supplyAsync(() -> get("/people/7?millis=8000"));
        HolderPools.await("the slow request holds its connection", () -> holdsNow() == 1);
        CompletableFuture<HttpResponse<String>> fast = CompletableFuture.supplyAsync(() -> get("/people?millis=5000"));
        HolderPools.await("both hold their connections", () -> holdsNow() == 2);

        String view = postTask("pool-holders?pool=hikari").body();
        List<String> lines = view.lines().toList();
        assertThat(lines.get(0)).isEqualTo("pool: hikari");
        assertThat(lines.get(1)).isEqualTo("connections: 2 total, 2 in use, 0 idle, 0 waiting");
        assertThat(lines.get(2)).isEqualTo("holders, longest first:");
        assertThat(lines.get(3)).matches("  GET /people/\\{id}: 1 connection, longest \\d+\\.\\d s");
        assertThat(lines.get(4)).matches("  GET /people: 1 connection, longest \\d+\\.\\d s");
        assertThat(lines.get(5)).isEqualTo("held now, longest first:");
        assertThat(lines.get(6)).matches("  \\d+\\.\\d s  GET /people/\\{id}  thread \"dw-.*\"");
        assertThat(lines.get(7)).matches("  \\d+\\.\\d s  GET /people  thread \"dw-.*\"");
        assertThat(lines).hasSize(8);
        assertThat(view).doesNotContain("Pa55word");

        String withStacks = postTask("pool-holders?stack=true").body();
        assertThat(withStacks).contains("      at " + HoldersApp.People.class.getName() + ".hold(");
        assertThat(withStacks).doesNotContain("Pa55word");

        assertThat(slow.join().statusCode()).isEqualTo(200);
        assertThat(fast.join().statusCode()).isEqualTo(200);
        assertThat(postTask("pool-holders").body()).contains("holders, longest first: none");
    }

    @Test
    void poolHoldersNamesAnUnknownPoolAndParameter() throws Exception {
        HttpResponse<String> unknownPool = postTask("pool-holders?pool=nope");
        assertThat(unknownPool.statusCode()).isEqualTo(400);
        assertThat(unknownPool.body()).isEqualTo("no pool named 'nope'; the pools are: hikari\n");
        HttpResponse<String> unknownParameter = postTask("pool-holders?sql=true");
        assertThat(unknownParameter.statusCode()).isEqualTo(400);
        assertThat(unknownParameter.body()).isEqualTo("pool-holders takes no parameter 'sql'; it takes pool, stack\n");
    }

    /** Answered as the operations extension's pool tasks answer: the status, and the reason as plain text. */
    @Test
    void poolHoldersRefusesBadValuesWith400AndTheReason() throws Exception {
        Map<String, String> refused = Map.of(
            "pool-holders?pool=hikari&pool=hikari", "pool was given 2 times; give it once\n",
            "pool-holders?pool=hikari&stack=yes", "stack must be true or false; got 'yes'\n");
        for (Map.Entry<String, String> request : refused.entrySet()) {
            HttpResponse<String> response = postTask(request.getKey());
            assertThat(response.statusCode()).as(request.getKey()).isEqualTo(400);
            assertThat(response.headers().firstValue("Content-Type")).as(request.getKey())
                .hasValueSatisfying(type -> assertThat(type).startsWith("text/plain"));
            assertThat(response.body()).as(request.getKey()).isEqualTo(request.getValue());
        }
        HttpResponse<String> answered = postTask("pool-holders?pool=hikari&stack=false");
        assertThat(answered.statusCode()).isEqualTo(200);
        assertThat(answered.body()).startsWith("pool: hikari\n");
        // other methods reach Dropwizard's task servlet, which takes POST only
        assertThat(send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + APP.getAdminPort()
            + "/tasks/pool-holders"))).statusCode()).isEqualTo(405);
    }

    private static long holdsNow() {
        HoldersExtension extension = (HoldersExtension) APP.getConfiguration().database.getExtensions().get(0);
        PoolHolds holds = extension.holds("hikari");
        return holds == null ? 0 : holds.holds().size();
    }

    private HttpResponse<String> get(String path) {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + APP.getLocalPort() + path)));
    }

    private HttpResponse<String> postTask(String pathAndQuery) {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + APP.getAdminPort() + "/tasks/"
            + pathAndQuery)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) {
        try {
            return client.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
