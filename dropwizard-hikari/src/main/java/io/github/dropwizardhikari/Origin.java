package io.github.dropwizardhikari;

import java.util.Set;

/**
 * Where a factory's block was parsed and which keys it held, as written (Dropwizard's or HikariCP's name).
 * @param path the block's path ({@code hikari}, {@code databases.primary}); empty for a factory built in Java
 */
record Origin(String path, Set<String> keys) {
    static final Origin JAVA = new Origin("", Set.of());

    /** @return the full path of one of the block's settings, as messages name it */
    String pathOf(String field) {
        return path.isEmpty() ? field : path + "." + field;
    }
}
