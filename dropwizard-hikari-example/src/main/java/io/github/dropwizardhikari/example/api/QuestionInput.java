package io.github.dropwizardhikari.example.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.validation.ValidationMethod;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.jspecify.annotations.Nullable;

import java.time.Instant;

/** The body of a create or update: every column but the id, which the server assigns (or the path names). */
public record QuestionInput(
    @JsonProperty("creationDate") @NotNull Instant creationDate,
    @JsonProperty("closedDate") @Nullable Instant closedDate,
    @JsonProperty("deletionDate") @Nullable Instant deletionDate,
    @JsonProperty("score") int score,
    @JsonProperty("ownerUserId") @Nullable @Min(1) Long ownerUserId,
    @JsonProperty("answerCount") @Min(0) int answerCount) {

    @JsonIgnore
    @ValidationMethod(message = "closedDate must not be before creationDate")
    public boolean isClosedAfterCreation() {
        return closedDate == null || creationDate == null || !closedDate.isBefore(creationDate);
    }

    @JsonIgnore
    @ValidationMethod(message = "deletionDate must not be before creationDate")
    public boolean isDeletedAfterCreation() {
        return deletionDate == null || creationDate == null || !deletionDate.isBefore(creationDate);
    }

    public Question withId(long id) {
        return new Question(id, creationDate, closedDate, deletionDate, score, ownerUserId, answerCount);
    }
}
