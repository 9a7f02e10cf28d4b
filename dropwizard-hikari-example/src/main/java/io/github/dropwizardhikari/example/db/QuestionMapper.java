package io.github.dropwizardhikari.example.db;

import io.github.dropwizardhikari.example.api.Question;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.StatementContext;
import org.jspecify.annotations.Nullable;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;

/** Maps a row by column label, which both H2 (upper case) and PostgreSQL (lower case) match case-blind. */
public class QuestionMapper implements RowMapper<Question> {
    @Override
    public Question map(ResultSet rs, StatementContext ctx) throws SQLException {
        long owner = rs.getLong("ownerUserId");
        Long ownerUserId = rs.wasNull() ? null : owner;
        return new Question(
            rs.getLong("id"),
            instant(rs.getTimestamp("creationDate")),
            instant(rs.getTimestamp("closedDate")),
            instant(rs.getTimestamp("deletionDate")),
            rs.getInt("score"),
            ownerUserId,
            rs.getInt("answerCount"));
    }

    @Nullable
    private static Instant instant(@Nullable Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }
}
