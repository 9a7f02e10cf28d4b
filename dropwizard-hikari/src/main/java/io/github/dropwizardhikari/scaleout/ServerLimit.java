package io.github.dropwizardhikari.scaleout;

/**
 * How many connections a database server accepts from ordinary users.
 *
 * @param server      what was asked ({@code PostgreSQL}, {@code MariaDB})
 * @param connections the connections available to this pool's kind of user
 * @param derivation  how {@code connections} follows from the server's settings, for the log
 */
record ServerLimit(String server, int connections, String derivation) {
}
