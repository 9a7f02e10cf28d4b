package io.github.dropwizardhikari;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core's main code stays within 2,750 lines, counted as {@code find dropwizard-hikari/src/main/java -name
 * '*.java' | xargs cat | wc -l} counts them: the newlines of every file. Past it, what is added belongs in an
 * extension module or pays for itself with a cut elsewhere (CONTRIBUTING.md, "The core's size").
 */
class CoreSizeTest {
    private static final long LIMIT = 2_750;

    @Test
    void theCoresMainCodeStaysWithinItsLineLimit() throws IOException {
        Path main = repositoryRoot().resolve("dropwizard-hikari").resolve("src").resolve("main").resolve("java");
        Map<String, Long> lines = new TreeMap<>();
        try (Stream<Path> files = Files.walk(main)) {
            for (Path file : files.filter(file -> file.toString().endsWith(".java")).toList()) {
                lines.put(file.getFileName().toString(),
                    Files.readString(file).chars().filter(c -> c == '\n').count());
            }
        }
        long total = lines.values().stream().mapToLong(Long::longValue).sum();
        assertThat(lines).as("the core's main sources under " + main).containsKey("ManagedHikariDataSource.java");
        assertThat(total).as(() -> "the core's main code (" + main + ") is " + total + " lines, " + (total - LIMIT)
                + " past its limit of " + LIMIT + "; move what only some pools need into an extension module or cut "
                + "as much elsewhere (CONTRIBUTING.md, \"The core's size\"). Lines per file: " + lines)
            .isLessThanOrEqualTo(LIMIT);
    }

    /** The directory that holds {@code mvnw}, found from the working directory up, as the documentation tests do. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("mvnw"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no mvnw above " + Path.of("").toAbsolutePath());
    }
}
