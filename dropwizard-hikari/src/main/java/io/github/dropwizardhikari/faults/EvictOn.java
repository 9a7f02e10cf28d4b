package io.github.dropwizardhikari.faults;

import java.sql.SQLException;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The user's {@code evictOn} list: SQLStates ({@code 08S01}) or vendor error codes ({@code 2013}). An entry of
 * digits only matches either, since some drivers (H2) use the error code as the SQLState.
 */
public final class EvictOn {
    private final Set<String> entries;

    public EvictOn(List<String> entries) {
        this.entries = entries.stream().map(entry -> entry.trim().toUpperCase(Locale.ROOT))
            .collect(Collectors.toUnmodifiableSet());
    }

    /** @return the first entry that is neither a five-character SQLState nor a vendor code, or {@code null} */
    public static String firstInvalid(List<String> entries) {
        for (String entry : entries) {
            String trimmed = entry == null ? "" : entry.trim();
            if (!trimmed.matches("[0-9A-Za-z]{5}") && !trimmed.matches("-?[0-9]{1,9}")) {
                return entry;
            }
        }
        return null;
    }

    public boolean matches(SQLException e) {
        String state = e.getSQLState();
        return (state != null && entries.contains(state.toUpperCase(Locale.ROOT)))
            || entries.contains(Integer.toString(e.getErrorCode()));
    }
}
