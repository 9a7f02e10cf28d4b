package io.github.dropwizardhikari.example.api;

import com.fasterxml.jackson.annotation.JsonProperty;
import org.jspecify.annotations.Nullable;

import java.time.Instant;

/**
 * A Stack Overflow question, as in the data set's {@code questions.csv}; absent dates and owners are JSON {@code null}.
 */
public record Question(
    @JsonProperty("id") long id,
    @JsonProperty("creationDate") Instant creationDate,
    @JsonProperty("closedDate") @Nullable Instant closedDate,
    @JsonProperty("deletionDate") @Nullable Instant deletionDate,
    @JsonProperty("score") int score,
    @JsonProperty("ownerUserId") @Nullable Long ownerUserId,
    @JsonProperty("answerCount") int answerCount) {
}
