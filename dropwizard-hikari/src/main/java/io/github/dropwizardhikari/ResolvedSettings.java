package io.github.dropwizardhikari;

import com.zaxxer.hikari.HikariConfig;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The HikariCP configuration a {@link HikariDataSourceFactory}'s settings resolve to, a new one each time, with each
 * value HikariCP cannot honour replaced.
 * @param warnings each warning of the settings, as logged (once per block)
 */
public record ResolvedSettings(HikariConfig config, List<String> warnings) {
    public ResolvedSettings {
        requireNonNull(config, "config");
        warnings = List.copyOf(warnings);
    }
}
