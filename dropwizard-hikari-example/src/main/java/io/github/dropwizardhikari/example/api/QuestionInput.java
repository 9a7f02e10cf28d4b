package io.github.dropwizardhikari.example.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.jspecify.annotations.Nullable;

import java.time.Instant;

/** The body of a create or update: every column but the id. */
public record QuestionInput(
    @JsonProperty("creationDate") @NotNull Instant creationDate,
    @JsonProperty("closedDate") @Nullable Instant closedDate,
    @JsonProperty("deletionDate") @Nullable Instant deletionDate,
    @JsonProperty("score") int score,
    @JsonProperty("ownerUserId") @Nullable @Min(1) Long ownerUserId,
    @JsonProperty("answerCount") @Min(0) int answerCount) {

    public Question withId(long id) {
        return new Question(id, creationDate, closedDate, deletionDate, score, ownerUserId, answerCount);
    }
}
