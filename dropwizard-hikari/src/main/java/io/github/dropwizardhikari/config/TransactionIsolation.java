package io.github.dropwizardhikari.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import org.jspecify.annotations.Nullable;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The default transaction isolation of pooled connections.
 *
 * <p>Accepts Dropwizard's {@code DataSourceFactory.TransactionIsolation} values ({@code READ_COMMITTED},
 * {@code DEFAULT}, ...) as well as HikariCP's {@code TRANSACTION_READ_COMMITTED} spelling, in any case and with
 * dashes or underscores, so that a {@code database:} block can be renamed to {@code hikari:} unchanged.</p>
 */
public enum TransactionIsolation {
    /** Leave the driver's default isolation in place. */
    DEFAULT(null),
    NONE("TRANSACTION_NONE"),
    READ_UNCOMMITTED("TRANSACTION_READ_UNCOMMITTED"),
    READ_COMMITTED("TRANSACTION_READ_COMMITTED"),
    REPEATABLE_READ("TRANSACTION_REPEATABLE_READ"),
    SERIALIZABLE("TRANSACTION_SERIALIZABLE");

    private static final String HIKARI_PREFIX = "TRANSACTION_";

    @Nullable
    private final String hikariName;

    TransactionIsolation(@Nullable String hikariName) {
        this.hikariName = hikariName;
    }

    /**
     * @return the name HikariCP's {@code transactionIsolation} setting expects, or {@code null} for the driver's
     * default
     */
    @Nullable
    public String hikariName() {
        return hikariName;
    }

    @JsonCreator
    public static TransactionIsolation parse(String text) {
        String normalized = text.trim().toUpperCase(Locale.ROOT).replace('-', '_').replace(' ', '_');
        if (normalized.startsWith(HIKARI_PREFIX)) {
            normalized = normalized.substring(HIKARI_PREFIX.length());
        }
        for (TransactionIsolation isolation : values()) {
            if (isolation.name().equals(normalized)) {
                return isolation;
            }
        }
        throw new IllegalArgumentException("unknown transaction isolation '" + text + "'; expected one of "
            + Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", ")));
    }
}
