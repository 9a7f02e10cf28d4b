package io.github.dropwizardhikari;

import com.zaxxer.hikari.HikariConfig;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The one step out of a {@link HikariDataSourceFactory}: the HikariCP configuration its settings resolve to, each
 * value HikariCP cannot honour exactly already replaced, and the warnings that say which and why. Each resolve
 * builds a new configuration, which no one else holds; a pool the factory builds gets one of its own.
 *
 * @param warnings each warning of the settings, as logged (once per block) when they were resolved or validated
 */
public record ResolvedSettings(HikariConfig config, List<String> warnings) {
    public ResolvedSettings {
        requireNonNull(config, "config");
        warnings = List.copyOf(warnings);
    }
}
