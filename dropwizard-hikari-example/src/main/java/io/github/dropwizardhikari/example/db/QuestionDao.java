package io.github.dropwizardhikari.example.db;

import io.github.dropwizardhikari.example.api.Question;
import io.github.dropwizardhikari.example.api.QuestionInput;
import org.jdbi.v3.sqlobject.config.RegisterRowMapper;
import org.jdbi.v3.sqlobject.customizer.Bind;
import org.jdbi.v3.sqlobject.customizer.BindMethods;
import org.jdbi.v3.sqlobject.statement.GetGeneratedKeys;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;

import java.util.List;
import java.util.Optional;

@RegisterRowMapper(QuestionMapper.class)
public interface QuestionDao {
    String COLUMNS = "id, creationDate, closedDate, deletionDate, score, ownerUserId, answerCount";

    /** Questions by owner, served by the index on ownerUserId. */
    @SqlQuery("SELECT " + COLUMNS + " FROM questions WHERE ownerUserId = :user")
    List<Question> findByOwner(@Bind("user") long user);

    @SqlQuery("SELECT " + COLUMNS + " FROM questions WHERE id = :id")
    Optional<Question> findById(@Bind("id") long id);

    @SqlQuery("SELECT " + COLUMNS + " FROM questions WHERE id = :id FOR UPDATE")
    Optional<Question> lockById(@Bind("id") long id);

    @SqlQuery("SELECT " + COLUMNS + " FROM questions ORDER BY id LIMIT :limit")
    List<Question> firstQuestions(@Bind("limit") int limit);

    @SqlUpdate("INSERT INTO questions (creationDate, closedDate, deletionDate, score, ownerUserId, answerCount) "
        + "VALUES (:creationDate, :closedDate, :deletionDate, :score, :ownerUserId, :answerCount)")
    @GetGeneratedKeys("id")
    long insert(@BindMethods QuestionInput question);

    @SqlUpdate("UPDATE questions SET creationDate = :q.creationDate, closedDate = :q.closedDate, "
        + "deletionDate = :q.deletionDate, score = :q.score, ownerUserId = :q.ownerUserId, "
        + "answerCount = :q.answerCount WHERE id = :id")
    int update(@Bind("id") long id, @BindMethods("q") QuestionInput question);

    @SqlUpdate("UPDATE questions SET answerCount = answerCount + :delta WHERE id = :id")
    int addAnswers(@Bind("id") long id, @Bind("delta") int delta);

    @SqlUpdate("DELETE FROM questions WHERE id = :id")
    int delete(@Bind("id") long id);

    @SqlQuery("SELECT COUNT(*) FROM questions")
    long count();
}
