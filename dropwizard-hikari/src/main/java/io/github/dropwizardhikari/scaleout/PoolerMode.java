package io.github.dropwizardhikari.scaleout;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What stands between the pool and the server, as declared with {@code pooler:}: the bundle cannot see a pooler on
 * the wire (PgBouncer forwards {@code SHOW max_connections} to the server).
 */
public enum PoolerMode {
    /** The pool talks to the database server itself, or through a proxy that keeps one session per connection. */
    NONE,
    /**
     * A transaction pooler (PgBouncer's {@code pool_mode = transaction}, or a managed proxy that behaves like it):
     * each transaction may run on a different server session.
     */
    TRANSACTION;

    @JsonCreator
    public static PoolerMode parse(String value) {
        String normalized = value.trim().toUpperCase(Locale.ROOT).replace('-', '_');
        return Arrays.stream(values()).filter(mode -> mode.name().equals(normalized)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("pooler must be one of "
                + Arrays.stream(values()).map(PoolerMode::toString).collect(Collectors.joining(", "))
                + ", not '" + value + "'"));
    }

    @JsonValue
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
