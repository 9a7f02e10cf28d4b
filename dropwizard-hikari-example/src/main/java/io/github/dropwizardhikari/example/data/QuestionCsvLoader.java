package io.github.dropwizardhikari.example.data;

import org.postgresql.PGConnection;
import org.postgresql.copy.CopyManager;

import java.io.BufferedReader;
import java.io.FilterReader;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.function.LongConsumer;

/**
 * Loads a {@code questions.csv} (the real one or a generated one) into the {@code questions} table.
 *
 * <p>The table is emptied first and the whole load is one transaction, so a load can be re-run and never leaves
 * duplicates or half a data set. On PostgreSQL it uses {@code COPY} with the index dropped during the load and
 * built afterwards, the fastest way to load it; elsewhere batched inserts.</p>
 */
public final class QuestionCsvLoader {
    /** What a load did. */
    public record Result(long rows, Duration elapsed, String method) {
    }

    private static final int BATCH_SIZE = 1_000;
    private static final String COLUMNS = "id, creationDate, closedDate, deletionDate, score, ownerUserId, "
        + "answerCount";

    private final LongConsumer progress;
    private final long progressEvery;

    /**
     * @param progress      told the number of rows loaded so far, every {@code progressEvery} rows
     * @param progressEvery how often to report
     */
    public QuestionCsvLoader(LongConsumer progress, long progressEvery) {
        this.progress = progress;
        this.progressEvery = progressEvery;
    }

    public Result load(Connection connection, Path csv) throws SQLException, IOException {
        long started = System.nanoTime();
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try (BufferedReader reader = Files.newBufferedReader(csv, StandardCharsets.UTF_8)) {
            checkHeader(reader.readLine(), csv);
            String method;
            long rows;
            if (connection.isWrapperFor(PGConnection.class)) {
                method = "PostgreSQL COPY";
                rows = copy(connection, reader);
            } else {
                method = "batched INSERT";
                rows = insertBatches(connection, reader);
            }
            restartIdentity(connection);
            connection.commit();
            return new Result(rows, Duration.ofNanos(System.nanoTime() - started), method);
        } catch (SQLException | IOException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    private static void checkHeader(String header, Path csv) {
        String expected = QuestionGenerator.HEADER.toLowerCase(Locale.ROOT);
        if (header == null || !header.trim().replace("\"", "").toLowerCase(Locale.ROOT).equals(expected)) {
            throw new IllegalArgumentException(csv + ": the first line must be the header '"
                + QuestionGenerator.HEADER + "', found '" + header + "'");
        }
    }

    private long copy(Connection connection, Reader rows) throws SQLException, IOException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("TRUNCATE questions");
            statement.execute("DROP INDEX IF EXISTS questions_owner_idx");
        }
        CopyManager copyManager = connection.unwrap(PGConnection.class).getCopyAPI();
        long loaded = copyManager.copyIn("COPY questions (" + COLUMNS + ") FROM STDIN WITH (FORMAT csv, NULL '"
            + QuestionGenerator.NULL + "')", new LineCountingReader(rows));
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE INDEX questions_owner_idx ON questions (ownerUserId)");
            statement.execute("ANALYZE questions");
        }
        return loaded;
    }

    private long insertBatches(Connection connection, BufferedReader reader) throws SQLException, IOException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("DELETE FROM questions");
        }
        long rows = 0;
        try (PreparedStatement insert = connection.prepareStatement(
            "INSERT INTO questions (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                bindRow(insert, line, rows + 2);
                insert.addBatch();
                rows++;
                if (rows % BATCH_SIZE == 0) {
                    insert.executeBatch();
                }
                reportProgress(rows);
            }
            insert.executeBatch();
        }
        return rows;
    }

    private static void bindRow(PreparedStatement insert, String line, long lineNumber) throws SQLException {
        String[] fields = line.split(",", -1);
        if (fields.length != 7) {
            throw new IllegalArgumentException("line " + lineNumber + ": expected 7 fields, found " + fields.length);
        }
        try {
            insert.setLong(1, Long.parseLong(fields[0]));
            insert.setTimestamp(2, timestamp(fields[1]));
            insert.setTimestamp(3, timestamp(fields[2]));
            insert.setTimestamp(4, timestamp(fields[3]));
            insert.setInt(5, Integer.parseInt(fields[4]));
            if (QuestionGenerator.NULL.equals(fields[5])) {
                insert.setNull(6, Types.BIGINT);
            } else {
                insert.setLong(6, Long.parseLong(fields[5]));
            }
            insert.setInt(7, Integer.parseInt(fields[6]));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("line " + lineNumber + ": " + e.getMessage(), e);
        }
    }

    private static Timestamp timestamp(String field) {
        return QuestionGenerator.NULL.equals(field) ? null : Timestamp.from(Instant.parse(field));
    }

    /** Rows loaded with explicit ids leave the identity behind; the API's inserts must continue after them. */
    private static void restartIdentity(Connection connection) throws SQLException {
        long next;
        try (Statement statement = connection.createStatement();
             ResultSet max = statement.executeQuery("SELECT COALESCE(MAX(id), 0) + 1 FROM questions")) {
            max.next();
            next = max.getLong(1);
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE questions ALTER COLUMN id RESTART WITH " + next);
        }
    }

    private void reportProgress(long rows) {
        if (progressEvery > 0 && rows % progressEvery == 0) {
            progress.accept(rows);
        }
    }

    /** Reports progress while COPY streams the file. */
    private final class LineCountingReader extends FilterReader {
        private long lines;

        LineCountingReader(Reader in) {
            super(in);
        }

        @Override
        public int read(char[] buffer, int offset, int length) throws IOException {
            int read = super.read(buffer, offset, length);
            for (int i = offset; i < offset + read; i++) {
                if (buffer[i] == '\n') {
                    reportProgress(++lines);
                }
            }
            return read;
        }
    }
}
