package io.github.dropwizardhikari.operations;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Requests to an application's admin port, as an operator's {@code curl} sends them. */
final class AdminRequests {
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /** POSTs to the task at {@code /tasks/<pathAndQuery>}. */
    HttpResponse<String> post(int adminPort, String pathAndQuery) throws Exception {
        return send(HttpRequest.newBuilder(uri(adminPort, "/tasks/" + pathAndQuery))
            .POST(HttpRequest.BodyPublishers.noBody()));
    }

    HttpResponse<String> get(int adminPort, String path) throws Exception {
        return send(HttpRequest.newBuilder(uri(adminPort, path)));
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return client.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(int adminPort, String path) {
        return URI.create("http://127.0.0.1:" + adminPort + path);
    }
}
