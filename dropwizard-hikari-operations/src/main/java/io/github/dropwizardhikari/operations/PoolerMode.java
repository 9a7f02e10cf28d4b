package io.github.dropwizardhikari.operations;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;

/**
 * What stands between the pool and the server, as declared with {@code pooler:}: the bundle cannot see a pooler on
 * the wire (PgBouncer forwards {@code SHOW max_connections} to the server).
 */
public enum PoolerMode {
    /** The pool talks to the database server itself, or through a proxy that keeps one session per connection. */
    NONE,
    /** A transaction pooler (PgBouncer's {@code pool_mode = transaction}, or a proxy that behaves like it). */
    TRANSACTION;

    @JsonCreator
    public static PoolerMode parse(String value) {
        for (PoolerMode mode : values()) {
            if (mode.toString().equalsIgnoreCase(value.trim())) {
                return mode;
            }
        }
        throw new IllegalArgumentException("pooler must be one of none, transaction, not '" + value + "'");
    }

    @JsonValue
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
