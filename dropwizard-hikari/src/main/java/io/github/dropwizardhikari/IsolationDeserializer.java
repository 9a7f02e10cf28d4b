package io.github.dropwizardhikari;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import io.dropwizard.db.DataSourceFactory.TransactionIsolation;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.util.Arrays;
import java.util.Locale;

/**
 * Dropwizard's transaction isolation values under both spellings: Dropwizard's ({@code read-committed},
 * {@code READ_COMMITTED}) and HikariCP's ({@code TRANSACTION_READ_COMMITTED}), in any case.
 */
final class IsolationDeserializer extends StdScalarDeserializer<TransactionIsolation> {
    private static final String HIKARI_PREFIX = "TRANSACTION_";

    IsolationDeserializer() {
        super(TransactionIsolation.class);
    }

    @Override
    public TransactionIsolation deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
        String text = p.getValueAsString();
        if (text == null) {
            return (TransactionIsolation) ctxt.handleUnexpectedToken(TransactionIsolation.class, p);
        }
        TransactionIsolation isolation = parse(text);
        return isolation != null ? isolation : (TransactionIsolation) ctxt.handleWeirdStringValue(
            TransactionIsolation.class, text, "expected one of " + Arrays.toString(TransactionIsolation.values()));
    }

    /** @return the isolation {@code text} names, in either spelling; {@code null} when it names none */
    static @Nullable TransactionIsolation parse(String text) {
        String upper = text.trim().toUpperCase(Locale.ROOT).replace('-', '_').replace(' ', '_');
        String name = upper.startsWith(HIKARI_PREFIX) ? upper.substring(HIKARI_PREFIX.length()) : upper;
        return Arrays.stream(TransactionIsolation.values()).filter(isolation -> isolation.name().equals(name))
            .findFirst().orElse(null);
    }

    /** @return the name HikariCP's {@code transactionIsolation} expects, or {@code null} for the driver's default */
    static @Nullable String hikariName(@Nullable TransactionIsolation isolation) {
        return isolation == null || isolation == TransactionIsolation.DEFAULT ? null : HIKARI_PREFIX + isolation.name();
    }
}
