package io.github.dropwizardhikari.example.api;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The two questions after answers were moved from one to the other in one transaction. */
public record AnswerMove(@JsonProperty("from") Question from, @JsonProperty("to") Question to) {
}
