package io.github.dropwizardhikari.example.api;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.dropwizard.validation.ValidationMethod;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.jspecify.annotations.Nullable;

import java.time.Instant;

/**
 * The body of a create or update: every column but the id, which the server assigns (or the path names). The numbers
 * are wrappers so that a missing or {@code null} one is a violation naming it, not a 0 stored in its place.
 */
public record QuestionInput(
    @JsonProperty("creationDate") @JsonDeserialize(using = IsoInstantDeserializer.class) @NotNull Instant creationDate,
    @JsonProperty("closedDate") @JsonDeserialize(using = IsoInstantDeserializer.class) @Nullable Instant closedDate,
    @JsonProperty("deletionDate") @JsonDeserialize(using = IsoInstantDeserializer.class) @Nullable
    Instant deletionDate,
    @JsonProperty("score") @NotNull Integer score,
    @JsonProperty("ownerUserId") @Nullable @Min(1) Long ownerUserId,
    @JsonProperty("answerCount") @NotNull @Min(0) Integer answerCount) {

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
