package io.github.dropwizardhikari.scaleout;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What stands between the pool and the database server, as the user declares it with {@code pooler:}.
 *
 * <p>The bundle cannot see a pooler on the wire (PgBouncer forwards {@code SHOW max_connections} to the server),
 * so the user says so; the bundle then warns about settings that assume one server session per connection, and
 * stops measuring the pool against the server's limit when it sizes the pool.</p>
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
