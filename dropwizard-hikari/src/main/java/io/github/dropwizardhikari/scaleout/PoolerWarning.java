package io.github.dropwizardhikari.scaleout;

/**
 * A setting that cannot work as written behind a transaction pooler.
 *
 * @param field  the YAML field, as the user wrote it ({@code initializationQuery}, {@code properties.prepareThreshold})
 * @param reason what goes wrong and what to do instead
 */
public record PoolerWarning(String field, String reason) {
}
