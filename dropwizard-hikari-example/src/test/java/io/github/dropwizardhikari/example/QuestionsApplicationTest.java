package io.github.dropwizardhikari.example;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The same application on HikariCP and on Dropwizard's Tomcat pool, each on H2 and on PostgreSQL, seeded with the
 * same generated data: every endpoint gives the same answers whichever pool and database serve it.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class QuestionsApplicationTest {
    static final DropwizardAppExtension<QuestionsConfiguration> HIKARI_H2 = TestApps.hikariOnH2("app_hikari");
    static final DropwizardAppExtension<QuestionsConfiguration> TOMCAT_H2 = TestApps.tomcatOnH2("app_tomcat");
    static final DropwizardAppExtension<QuestionsConfiguration> HIKARI_PG = TestApps.hikariOnPostgres("example_app_hikari");
    static final DropwizardAppExtension<QuestionsConfiguration> TOMCAT_PG = TestApps.tomcatOnPostgres("example_app_tomcat");

    private static final List<String> HIKARI_METRICS = List.of("Wait", "Usage", "ConnectionCreation",
        "ConnectionTimeoutRate", "TotalConnections", "IdleConnections", "ActiveConnections", "PendingConnections",
        "MaxConnections", "MinConnections");

    private final ObjectMapper json = new ObjectMapper();

    static Stream<Arguments> apps() {
        return Stream.of(Arguments.of("hikari on H2", HIKARI_H2), Arguments.of("tomcat on H2", TOMCAT_H2),
            Arguments.of("hikari on PostgreSQL", HIKARI_PG), Arguments.of("tomcat on PostgreSQL", TOMCAT_PG));
    }

    private static String url(DropwizardAppExtension<?> app, String path) {
        return "http://localhost:" + app.getLocalPort() + path;
    }

    private static String adminUrl(DropwizardAppExtension<?> app, String path) {
        return "http://localhost:" + app.getAdminPort() + path;
    }

    private List<Map<String, Object>> questionsOf(DropwizardAppExtension<?> app, long user) throws Exception {
        String body = app.client().target(url(app, "/questions?user=" + user)).request().get(String.class);
        List<Map<String, Object>> questions = json.readValue(body, new TypeReference<>() { });
        questions.sort(Comparator.comparingLong(question -> ((Number) question.get("id")).longValue()));
        return questions;
    }

    @Test
    void everyConfigurationGivesTheSameAnswers() throws Exception {
        for (long user = 1; user <= 8; user++) {
            List<Map<String, Object>> expected = questionsOf(HIKARI_H2, user);
            assertThat(expected).as("questions of user %d", user).isNotEmpty();
            assertThat(questionsOf(TOMCAT_H2, user)).isEqualTo(expected);
            assertThat(questionsOf(HIKARI_PG, user)).isEqualTo(expected);
            assertThat(questionsOf(TOMCAT_PG, user)).isEqualTo(expected);
        }
    }

    @Test
    void pauseWaitsWithoutTheDatabaseAndRefusesLongPauses() throws Exception {
        long started = System.nanoTime();
        JsonNode paused = json.readTree(HIKARI_H2.client().target(url(HIKARI_H2, "/pause?ms=50")).request()
            .get(String.class));
        long tookMillis = (System.nanoTime() - started) / 1_000_000;

        assertThat(paused.get("pausedMs").asInt()).isEqualTo(50);
        assertThat(tookMillis).as("the 50 ms pause took %d ms", tookMillis).isGreaterThanOrEqualTo(50);
        try (Response tooLong = HIKARI_H2.client().target(url(HIKARI_H2, "/pause?ms=5000")).request().get()) {
            assertThat(tooLong.getStatus()).isEqualTo(400);
        }
        // admission is not named in the example's configurations, so nothing holds a request that uses no connection
        assertThat(HIKARI_H2.getEnvironment().metrics().getNames()).noneMatch(name -> name.contains(".admission."));
    }

    @Test
    void questionsAreJsonWithNullsAndIsoDates() throws Exception {
        JsonNode questions = json.readTree(HIKARI_PG.client().target(url(HIKARI_PG, "/questions/first?limit=500"))
            .request().get(String.class));

        assertThat(questions).hasSize(500);
        JsonNode first = questions.get(0);
        assertThat(first.fieldNames()).toIterable().containsExactly("id", "creationDate", "closedDate",
            "deletionDate", "score", "ownerUserId", "answerCount");
        assertThat(first.get("id").asLong()).isEqualTo(1);
        assertThat(first.get("creationDate").asText()).matches("2008-07-31T\\d{2}:\\d{2}:\\d{2}Z");
        assertThat(questions).anySatisfy(question -> assertThat(question.get("closedDate").isNull()).isTrue());
        assertThat(questions).anySatisfy(question -> assertThat(question.get("ownerUserId").isNull()).isTrue());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("apps")
    void manySmallSelectsAnswerPerOwner(String name, DropwizardAppExtension<QuestionsConfiguration> app)
        throws Exception {
        JsonNode byOwner = json.readTree(app.client().target(url(app, "/questions/by-owners?users=1,2,3"))
            .request().get(String.class));

        assertThat(byOwner.fieldNames()).toIterable().containsExactly("1", "2", "3");
        assertThat(byOwner.get("2")).hasSize(questionsOf(app, 2).size());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("apps")
    void createUpdateMoveAndDelete(String name, DropwizardAppExtension<QuestionsConfiguration> app)
        throws Exception {
        String body = "{\"creationDate\":\"2024-05-01T10:00:00Z\",\"score\":3,\"ownerUserId\":9999,"
            + "\"answerCount\":4}";
        Response created = app.client().target(url(app, "/questions")).request()
            .post(Entity.entity(body, MediaType.APPLICATION_JSON));
        assertThat(created.getStatus()).isEqualTo(201);
        long id = json.readTree(created.readEntity(String.class)).get("id").asLong();
        assertThat(created.getLocation().getPath()).isEqualTo("/questions/" + id);
        assertThat(id).isGreaterThan(3_000);

        Response second = app.client().target(url(app, "/questions")).request()
            .post(Entity.entity(body.replace("\"answerCount\":4", "\"answerCount\":0"), MediaType.APPLICATION_JSON));
        long other = json.readTree(second.readEntity(String.class)).get("id").asLong();

        Response moved = app.client().target(url(app, "/questions/" + id + "/move-answers?to=" + other + "&count=3"))
            .request().post(Entity.json(""));
        assertThat(moved.getStatus()).isEqualTo(200);
        JsonNode move = json.readTree(moved.readEntity(String.class));
        assertThat(move.get("from").get("answerCount").asInt()).isEqualTo(1);
        assertThat(move.get("to").get("answerCount").asInt()).isEqualTo(3);

        // more than the source has: refused, and neither question changed
        Response refused = app.client().target(url(app, "/questions/" + id + "/move-answers?to=" + other
            + "&count=2")).request().post(Entity.json(""));
        assertThat(refused.getStatus()).isEqualTo(422);
        assertThat(refused.readEntity(String.class)).contains("count must be at most 1");
        assertThat(questionsOf(app, 9999)).extracting(question -> question.get("answerCount"))
            .containsExactly(1, 3);

        Response updated = app.client().target(url(app, "/questions/" + id)).request()
            .put(Entity.entity(body.replace("\"score\":3", "\"score\":30"), MediaType.APPLICATION_JSON));
        assertThat(updated.getStatus()).isEqualTo(200);
        assertThat(json.readTree(app.client().target(url(app, "/questions/" + id)).request().get(String.class))
            .get("score").asInt()).isEqualTo(30);

        assertThat(app.client().target(url(app, "/questions/" + id)).request().delete().getStatus()).isEqualTo(204);
        assertThat(app.client().target(url(app, "/questions/" + other)).request().delete().getStatus()).isEqualTo(204);
        assertThat(app.client().target(url(app, "/questions/" + id)).request().get().getStatus()).isEqualTo(404);
        assertThat(app.client().target(url(app, "/questions/" + id)).request().delete().getStatus()).isEqualTo(404);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("apps")
    void healthCheckAndMetricsAtTheAdminPort(String name, DropwizardAppExtension<QuestionsConfiguration> app)
        throws Exception {
        JsonNode health = json.readTree(app.client().target(adminUrl(app, "/healthcheck")).request()
            .get(String.class));
        JsonNode metrics = json.readTree(app.client().target(adminUrl(app, "/metrics")).request().get(String.class));
        String allMetricNames = metrics.toString();

        assertThat(health.get("questions").get("healthy").asBoolean()).isTrue();
        if (app.getConfiguration().getHikari() != null) {
            assertThat(health.get("questions.pool.ConnectivityCheck").get("healthy").asBoolean()).isTrue();
            for (String metric : HIKARI_METRICS) {
                assertThat(allMetricNames).contains("\"questions.pool." + metric + "\"");
            }
        } else {
            assertThat(health.has("questions.pool.ConnectivityCheck")).isFalse();
            assertThat(allMetricNames).doesNotContain("questions.pool.Wait")
                .contains("io.dropwizard.db.ManagedPooledDataSource.questions.active");
        }
    }

    @Test
    void thePoolTasksAreOnTheAdminPort() {
        try (Response status = HIKARI_H2.client().target(adminUrl(HIKARI_H2, "/tasks/pool-status")).request()
                 .post(Entity.text(""));
             Response resize = HIKARI_H2.client().target(adminUrl(HIKARI_H2, "/tasks/pool-resize?maxSize=0"))
                 .request().post(Entity.text(""))) {
            assertThat(status.getStatus()).isEqualTo(200);
            assertThat(status.readEntity(String.class)).contains("pool: questions\n", "state: running\n");
            assertThat(resize.getStatus()).isEqualTo(400);
            assertThat(resize.readEntity(String.class)).startsWith("maxSize must be at least 1");
        }
        try (Response tomcat = TOMCAT_H2.client().target(adminUrl(TOMCAT_H2, "/tasks/pool-status")).request()
                 .post(Entity.text(""))) {
            assertThat(tomcat.getStatus()).as("no HikariCP pool, no tasks").isEqualTo(404);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badRequests")
    void badInputNamesTheParameter(String request, int status, String message) throws Exception {
        String[] parts = request.split(" ", 2);
        // each response read and closed before any assertion, so a failing case cannot hold the client's connections
        try (Response response = HIKARI_H2.client().target(url(HIKARI_H2, parts[1])).request()
                 .method(parts[0], parts[0].equals("GET") || parts[0].equals("DELETE") ? null
                     : Entity.entity("{\"score\":1,\"answerCount\":-1}", MediaType.APPLICATION_JSON))) {
            String body = response.readEntity(String.class);

            assertThat(response.getStatus()).as(body).isEqualTo(status);
            assertThat(response.getMediaType().toString()).startsWith("application/json");
            assertThat(body).contains(message);
            assertOneErrorFormat(body, status);
        }
    }

    /** Every error of the API in Dropwizard's {@code {"code": ..., "message": ...}}, never {@code {"errors": [...]}}. */
    private void assertOneErrorFormat(String body, int status) throws Exception {
        JsonNode error = json.readTree(body);
        assertThat(error.fieldNames()).toIterable().as(body).containsExactly("code", "message");
        assertThat(error.get("code").asInt()).isEqualTo(status);
    }

    /** A body the API cannot honour as sent is refused with 422 naming the field, and nothing is stored. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedBodies")
    void aBodyItCannotHonourIsRefusedNamingTheField(String what, String method, String body, String message)
        throws Exception {
        long before = questionsOf(HIKARI_H2, 4242).size();
        String path = method.equals("POST") ? "/questions" : "/questions/1";
        int status;
        String answer;
        try (Response response = HIKARI_H2.client().target(url(HIKARI_H2, path)).request()
                 .method(method, Entity.entity(body, MediaType.APPLICATION_JSON))) {
            status = response.getStatus();
            answer = response.readEntity(String.class);
        }

        assertThat(status).as(what + ": " + answer).isEqualTo(422);
        assertThat(json.readTree(answer).get("message").asText()).as(what).contains(message);
        assertOneErrorFormat(answer, 422);
        assertThat(questionsOf(HIKARI_H2, 4242)).hasSize((int) before);
        assertThat(json.readTree(HIKARI_H2.client().target(url(HIKARI_H2, "/questions/1")).request()
            .get(String.class)).get("ownerUserId").asLong()).as("question 1 unchanged").isNotEqualTo(4242);
    }

    static Stream<Arguments> refusedBodies() {
        String valid = "\"creationDate\":\"2024-05-01T10:00:00Z\",\"score\":3,\"ownerUserId\":4242,\"answerCount\":0";
        return Stream.of(
            Arguments.of("an id in a create", "POST", "{\"id\":7," + valid + "}",
                "id is not a field of this body; it takes answerCount, closedDate, creationDate, deletionDate, "
                    + "ownerUserId, score"),
            Arguments.of("an id in an update", "PUT", "{\"id\":1," + valid + "}", "id is not a field of this body"),
            Arguments.of("an unknown field", "POST", "{" + valid + ",\"tags\":[\"java\"]}",
                "tags is not a field of this body"),
            Arguments.of("closedDate before creationDate", "POST",
                "{" + valid + ",\"closedDate\":\"2024-04-30T10:00:00Z\"}", "closedDate must not be before creationDate"),
            Arguments.of("deletionDate before creationDate", "PUT",
                "{" + valid + ",\"deletionDate\":\"2020-01-01T00:00:00Z\"}",
                "deletionDate must not be before creationDate"),
            Arguments.of("two violations", "POST", "{\"score\":1,\"answerCount\":-1}",
                "answerCount must be greater than or equal to 0; creationDate must not be null"),
            Arguments.of("a number as text", "POST", "{" + valid.replace("\"score\":3", "\"score\":\"5\"") + "}",
                "score must be " + INT),
            Arguments.of("a fraction", "POST", "{" + valid.replace("\"score\":3", "\"score\":1.5") + "}",
                "score must be " + INT),
            Arguments.of("a whole number written as a fraction", "PUT",
                "{" + valid.replace("\"answerCount\":0", "\"answerCount\":1.0") + "}", "answerCount must be " + INT),
            Arguments.of("a number too large for its field", "POST",
                "{" + valid.replace("\"score\":3", "\"score\":99999999999") + "}", "score must be " + INT),
            Arguments.of("a boolean for a number", "POST", "{" + valid.replace("\"score\":3", "\"score\":true") + "}",
                "score must be " + INT),
            Arguments.of("an owner as text", "POST",
                "{" + valid.replace("\"ownerUserId\":4242", "\"ownerUserId\":\"4242\"") + "}",
                "ownerUserId must be a whole number from -9223372036854775808 to 9223372036854775807"),
            Arguments.of("a null score", "POST", "{" + valid.replace("\"score\":3", "\"score\":null") + "}",
                "score must not be null"),
            Arguments.of("a missing score", "PUT", "{" + valid.replace("\"score\":3,", "") + "}",
                "score must not be null"),
            Arguments.of("a null answerCount", "POST",
                "{" + valid.replace("\"answerCount\":0", "\"answerCount\":null") + "}", "answerCount must not be null"),
            Arguments.of("both numbers missing", "POST",
                "{\"creationDate\":\"2024-05-01T10:00:00Z\",\"ownerUserId\":4242}",
                "answerCount must not be null; score must not be null"),
            Arguments.of("a duplicate key", "POST", "{" + valid + ",\"score\":4}",
                "score is given twice; each field may appear once"),
            Arguments.of("a duplicate date", "PUT", "{\"creationDate\":\"2020-01-01T00:00:00Z\"," + valid + "}",
                "creationDate is given twice"),
            Arguments.of("a date as seconds", "POST",
                "{" + valid.replace("\"2024-05-01T10:00:00Z\"", "1577836800") + "}",
                "creationDate must be " + DATE),
            Arguments.of("a date as digits in text", "POST",
                "{" + valid.replace("2024-05-01T10:00:00Z", "1577836800") + "}", "creationDate must be " + DATE),
            Arguments.of("a date in year +999999999", "POST",
                "{" + valid.replace("2024-05-01T10:00:00Z", "+999999999-12-31T23:59:59Z") + "}",
                "creationDate must be " + DATE),
            Arguments.of("a date after 9999", "PUT",
                "{" + valid + ",\"closedDate\":\"9999-12-31T23:59:59.5Z\"}", "closedDate must be " + DATE),
            Arguments.of("a date before 1970", "POST",
                "{" + valid.replace("2024-05-01T10:00:00Z", "1969-12-31T23:59:59Z") + "}",
                "creationDate must be " + DATE),
            Arguments.of("a date without a time", "POST",
                "{" + valid.replace("2024-05-01T10:00:00Z", "2024-05-01") + "}", "creationDate must be " + DATE),
            Arguments.of("a date without an offset", "POST",
                "{" + valid.replace("2024-05-01T10:00:00Z", "2024-05-01T10:00:00") + "}",
                "creationDate must be " + DATE),
            Arguments.of("a deletionDate as a number", "POST", "{" + valid + ",\"deletionDate\":1577836800000}",
                "deletionDate must be " + DATE));
    }

    private static final String INT = "a whole number from -2147483648 to 2147483647, as a JSON number without "
        + "quotes or a fraction";
    private static final String DATE = "ISO-8601 text with an offset, such as \"2024-05-01T10:00:00Z\", from "
        + "1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z";

    /** What the refusals above answer is what docs/example.md promises, word for word. */
    @Test
    void theDocsQuoteTheRefusals() throws Exception {
        // lines wrap anywhere in Markdown
        String docs = Files.readString(repositoryRoot().resolve(Path.of("docs", "example.md")))
            .replaceAll("\\s+", " ");

        assertThat(docs).contains("`score must be " + INT + "`", "`creationDate must be " + DATE + "`",
            "`score must not be null`", "`score is given twice; each field may appear once`",
            "`query param user must be given once, not 2 times`",
            "`query param ms must be a whole number, not 'abc'`");
    }

    /** The edges of the dates' range, and an offset other than Z, are stored and answered as the same instant. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("apps")
    void datesAtTheEdgesOfTheRangeAreKept(String name, DropwizardAppExtension<QuestionsConfiguration> app)
        throws Exception {
        String body = "{\"creationDate\":\"1970-01-01T00:00:00Z\",\"closedDate\":\"2024-05-01T12:00:00+02:00\","
            + "\"deletionDate\":\"9999-12-31T23:59:59Z\",\"score\":-2147483648,\"ownerUserId\":4343,"
            + "\"answerCount\":2147483647}";
        int status;
        String answer;
        try (Response created = app.client().target(url(app, "/questions")).request()
                 .post(Entity.entity(body, MediaType.APPLICATION_JSON))) {
            status = created.getStatus();
            answer = created.readEntity(String.class);
        }
        assertThat(status).as(answer).isEqualTo(201);
        long id = json.readTree(answer).get("id").asLong();

        JsonNode stored = json.readTree(app.client().target(url(app, "/questions/" + id)).request().get(String.class));
        assertThat(stored.get("creationDate").asText()).isEqualTo("1970-01-01T00:00:00Z");
        assertThat(stored.get("closedDate").asText()).isEqualTo("2024-05-01T10:00:00Z");
        assertThat(stored.get("deletionDate").asText()).isEqualTo("9999-12-31T23:59:59Z");
        assertThat(stored.get("score").asInt()).isEqualTo(Integer.MIN_VALUE);
        assertThat(stored.get("answerCount").asInt()).isEqualTo(Integer.MAX_VALUE);
        try (Response deleted = app.client().target(url(app, "/questions/" + id)).request().delete()) {
            assertThat(deleted.getStatus()).isEqualTo(204);
        }
    }

    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("mvnw"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no mvnw above " + Path.of("").toAbsolutePath());
    }

    @Test
    void theOtherErrorsShareTheFormat() throws Exception {
        Response malformed = HIKARI_H2.client().target(url(HIKARI_H2, "/questions")).request()
            .post(Entity.entity("{\"creationDate\":", MediaType.APPLICATION_JSON));
        assertThat(malformed.getStatus()).isEqualTo(400);
        assertOneErrorFormat(malformed.readEntity(String.class), 400);

        Response unknownPath = HIKARI_H2.client().target(url(HIKARI_H2, "/answers")).request().get();
        assertThat(unknownPath.getStatus()).isEqualTo(404);
        assertOneErrorFormat(unknownPath.readEntity(String.class), 404);
    }

    static Stream<Arguments> badRequests() {
        return Stream.of(
            Arguments.of("GET /questions", 400, "query param user is required"),
            Arguments.of("GET /questions?user=abc", 400, "query param user must be a whole number, not 'abc'"),
            Arguments.of("GET /questions/by-owners", 400, "query param users is required"),
            Arguments.of("GET /questions?user=99999999999999999999", 400, "query param user must be between "
                + "1 and 9223372036854775807, not '99999999999999999999'"),
            Arguments.of("GET /questions?user=-1", 400, "query param user must be between 1 and 9223372036854775807, "
                + "not '-1'"),
            Arguments.of("GET /questions?user=0", 400, "query param user must be between 1 and"),
            Arguments.of("GET /questions?user=87&user=88", 400, "query param user must be given once, not 2 times"),
            Arguments.of("GET /questions/by-owners?users=1&users=2,3", 400,
                "query param users must be given once, not 2 times"),
            Arguments.of("GET /pause?ms=abc", 400, "query param ms must be a whole number, not 'abc'"),
            Arguments.of("GET /pause?ms=99999999999", 400,
                "query param ms must be between 0 and 1000, not '99999999999'"),
            Arguments.of("GET /pause?ms=-5", 400, "query param ms must be between 0 and 1000, not '-5'"),
            Arguments.of("GET /pause?ms=1.5", 400, "query param ms must be a whole number, not '1.5'"),
            Arguments.of("GET /pause?ms=1&ms=2", 400, "query param ms must be given once, not 2 times"),
            Arguments.of("GET /questions/by-owners?users=1,x", 400,
                "each user id in query param users must be a whole number, not 'x'"),
            Arguments.of("GET /questions/by-owners?users=1,-99999999999999999999", 400,
                "each user id in query param users must be between 1 and 9223372036854775807"),
            Arguments.of("GET /questions/first?limit=0", 400, "query param limit must be between 1 and 10000"),
            Arguments.of("GET /questions/first?limit=10001", 400, "query param limit must be between 1 and 10000"),
            Arguments.of("GET /questions/first?limit=many", 400, "query param limit must be a whole number"),
            Arguments.of("GET /questions/first?limit=99999999999999999999", 400,
                "query param limit must be between 1 and 10000, not '99999999999999999999'"),
            Arguments.of("GET /questions/123456789", 404, "question 123456789 not found"),
            Arguments.of("GET /questions/abc", 400, "path param id must be a whole number, not 'abc'"),
            Arguments.of("DELETE /questions/99999999999999999999", 400, "path param id must be between"),
            Arguments.of("DELETE /questions/123456789", 404, "question 123456789 not found"),
            Arguments.of("POST /questions/1/move-answers?count=1", 400, "query param to is required"),
            Arguments.of("POST /questions/1/move-answers?to=2", 400, "query param count is required"),
            Arguments.of("POST /questions/1/move-answers?to=2&count=0", 400, "query param count must be between 1 and 2147483647, not '0'"),
            Arguments.of("POST /questions/1/move-answers?to=1&count=1", 422, "query param to must differ"),
            Arguments.of("POST /questions/1/move-answers?to=123456789&count=1", 404, "question 123456789 not found"),
            Arguments.of("POST /questions", 422, "creationDate must not be null"),
            Arguments.of("PUT /questions/1", 422, "answerCount must be greater than or equal to 0"));
    }
}
