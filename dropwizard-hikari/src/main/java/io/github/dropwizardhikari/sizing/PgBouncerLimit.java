package io.github.dropwizardhikari.sizing;

/**
 * PgBouncer's own limits, from {@code SHOW CONFIG} on its admin console.
 *
 * @param maxClientConnections {@code max_client_conn}: client connections it accepts in all
 * @param defaultPoolSize      {@code default_pool_size}: server connections per database and user pair
 * @param maxDbConnections     {@code max_db_connections}: server connections per database, 0 for no limit
 */
public record PgBouncerLimit(int maxClientConnections, int defaultPoolSize, int maxDbConnections) {
}
