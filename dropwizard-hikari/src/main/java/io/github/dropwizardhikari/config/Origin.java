package io.github.dropwizardhikari.config;

import java.util.Set;

/**
 * Where a configuration block was parsed and which keys it held.
 *
 * @param path the block's path in the configuration ({@code hikari}, {@code databases.primary}); empty for the
 *             root or a factory built in Java
 * @param keys the keys the block states, as written (Dropwizard's or HikariCP's name)
 */
public record Origin(String path, Set<String> keys) {
    public static final Origin JAVA = new Origin("", Set.of());

    public Origin {
        keys = Set.copyOf(keys);
    }

    /** @return the full path of one of the block's fields, as messages name it */
    public String pathOf(String field) {
        return path.isEmpty() ? field : path + "." + field;
    }
}
