package io.github.dropwizardhikari.example.resources;

import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.dropwizard.testing.junit5.ResourceExtension;
import io.github.dropwizardhikari.example.api.Question;
import io.github.dropwizardhikari.example.data.QuestionCsvLoader;
import io.github.dropwizardhikari.example.data.QuestionGenerator;
import io.github.dropwizardhikari.example.db.SchemaMigration;
import io.github.dropwizardhikari.example.errors.DatabaseUnavailableExceptionMapper;
import jakarta.ws.rs.core.GenericType;
import jakarta.ws.rs.core.Response;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.SqlObjectPlugin;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The resource alone, in Jersey's in-memory test container, over a real H2 database. */
@ExtendWith(DropwizardExtensionsSupport.class)
class QuestionsResourceTest {
    private static final Jdbi JDBI = Jdbi.create("jdbc:h2:mem:resource;DB_CLOSE_DELAY=-1", "sa", "")
        .installPlugin(new SqlObjectPlugin());

    static final ResourceExtension RESOURCE = ResourceExtension.builder()
        .addResource(new QuestionsResource(JDBI, 50, 3))
        .addProvider(new DatabaseUnavailableExceptionMapper())
        .build();

    @BeforeAll
    static void loadData() throws Exception {
        Path csv = Files.createTempFile("resource", ".csv");
        try (Writer out = Files.newBufferedWriter(csv)) {
            new QuestionGenerator(3, 20).write(500, out);
        }
        JDBI.useHandle(handle -> {
            SchemaMigration.migrate(handle.getConnection());
            new QuestionCsvLoader(rows -> { }, 0).load(handle.getConnection(), csv);
        });
        Files.delete(csv);
    }

    @Test
    void answersTheOwnersQuestionsFromTheDatabase() {
        List<Question> questions = RESOURCE.target("/questions").queryParam("user", 1).request()
            .get(new GenericType<>() { });
        long inDatabase = JDBI.withHandle(handle -> handle.createQuery(
            "SELECT COUNT(*) FROM questions WHERE ownerUserId = 1").mapTo(Long.class).one());

        assertThat(questions).hasSize((int) inDatabase).isNotEmpty()
            .allSatisfy(question -> assertThat(question.ownerUserId()).isEqualTo(1L));
    }

    @Test
    void theConfiguredLimitsApply() {
        Response tooLarge = RESOURCE.target("/questions/first").queryParam("limit", 51).request().get();
        Response tooMany = RESOURCE.target("/questions/by-owners").queryParam("users", "1,2,3,4").request().get();

        assertThat(tooLarge.getStatus()).isEqualTo(400);
        assertThat(tooLarge.readEntity(String.class)).contains("query param limit must be between 1 and 50");
        assertThat(tooMany.getStatus()).isEqualTo(400);
        assertThat(tooMany.readEntity(String.class)).contains("query param users must name at most 3 users");
        assertThat(RESOURCE.target("/questions/first").queryParam("limit", 50).request()
            .get(new GenericType<List<Question>>() { })).hasSize(50);
    }

    @Test
    void duplicateOwnersAreSelectedOnce() {
        String body = RESOURCE.target("/questions/by-owners").queryParam("users", "2,2,2").request()
            .get(String.class);

        assertThat(body).startsWith("{\"2\":[");
    }
}
