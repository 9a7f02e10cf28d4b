package io.github.dropwizardhikari.example.data;

import io.github.dropwizardhikari.example.TestPostgres;
import io.github.dropwizardhikari.example.db.SchemaMigration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class QuestionCsvLoaderTest {
    @TempDir
    Path directory;

    private Path csv(long rows) throws Exception {
        Path file = directory.resolve("questions-" + rows + ".csv");
        try (Writer out = Files.newBufferedWriter(file)) {
            new QuestionGenerator(11, 200).write(rows, out);
        }
        return file;
    }

    private static long scalar(Connection connection, String sql) throws Exception {
        try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getLong(1);
        }
    }

    private static void assertLoadsAndReloads(Connection connection, Path file, String method) throws Exception {
        SchemaMigration.migrate(connection);
        List<Long> progress = new ArrayList<>();
        QuestionCsvLoader loader = new QuestionCsvLoader(progress::add, 1_000);

        QuestionCsvLoader.Result first = loader.load(connection, file);
        QuestionCsvLoader.Result second = loader.load(connection, file);

        assertThat(first.rows()).isEqualTo(5_000);
        assertThat(first.method()).isEqualTo(method);
        assertThat(second.rows()).isEqualTo(5_000);
        assertThat(scalar(connection, "SELECT COUNT(*) FROM questions")).isEqualTo(5_000);
        assertThat(scalar(connection, "SELECT COUNT(*) FROM questions WHERE ownerUserId IS NULL")).isPositive();
        assertThat(progress).contains(1_000L, 5_000L);
        try (Statement statement = connection.createStatement()) {
            statement.executeUpdate("INSERT INTO questions (creationDate, score, answerCount) "
                + "VALUES (CURRENT_TIMESTAMP, 1, 0)");
        }
        // the identity continues after the loaded ids
        assertThat(scalar(connection, "SELECT MAX(id) FROM questions")).isEqualTo(5_001);
    }

    @Test
    void loadsWithBatchedInsertsOnH2AndCanBeRerun() throws Exception {
        try (Connection connection = DriverManager.getConnection("jdbc:h2:mem:loader;DB_CLOSE_DELAY=-1", "sa", "")) {
            assertLoadsAndReloads(connection, csv(5_000), "batched INSERT");
        }
    }

    @Test
    void loadsWithCopyOnPostgresAndCanBeRerun() throws Exception {
        String url = TestPostgres.freshSchema("example_loader");
        try (Connection connection = DriverManager.getConnection(url, TestPostgres.user(), TestPostgres.password())) {
            assertLoadsAndReloads(connection, csv(5_000), "PostgreSQL COPY");
            assertThat(scalar(connection, "SELECT COUNT(*) FROM pg_indexes WHERE schemaname = current_schema() "
                + "AND indexname = 'questions_owner_idx'")).isEqualTo(1);
        }
    }

    @Test
    void aFileWithoutTheHeaderIsRefusedAndNothingChanges() throws Exception {
        Path bad = directory.resolve("bad.csv");
        Files.writeString(bad, "1,2008-07-31T21:26:37Z,NA,NA,1,NA,0\n");
        try (Connection connection = DriverManager.getConnection("jdbc:h2:mem:bad;DB_CLOSE_DELAY=-1", "sa", "")) {
            SchemaMigration.migrate(connection);
            new QuestionCsvLoader(rows -> { }, 0).load(connection, csv(10));

            assertThatThrownBy(() -> new QuestionCsvLoader(rows -> { }, 0).load(connection, bad))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the first line must be the header");
            assertThat(scalar(connection, "SELECT COUNT(*) FROM questions")).isEqualTo(10);
        }
    }

    @Test
    void aBrokenRowRollsBackTheWholeLoad() throws Exception {
        Path broken = directory.resolve("broken.csv");
        Files.writeString(broken, QuestionGenerator.HEADER + "\n1,2008-07-31T21:26:37Z,NA,NA,1,NA,0\n2,yesterday,NA,NA,1,NA,0\n");
        try (Connection connection = DriverManager.getConnection("jdbc:h2:mem:broken;DB_CLOSE_DELAY=-1", "sa", "")) {
            SchemaMigration.migrate(connection);
            new QuestionCsvLoader(rows -> { }, 0).load(connection, csv(10));

            assertThatThrownBy(() -> new QuestionCsvLoader(rows -> { }, 0).load(connection, broken))
                .hasMessageContaining("line 3");
            assertThat(scalar(connection, "SELECT COUNT(*) FROM questions")).isEqualTo(10);
        }
    }
}
