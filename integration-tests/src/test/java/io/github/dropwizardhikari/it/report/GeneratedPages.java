package io.github.dropwizardhikari.it.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the suite writes the pages it generates from its own observations ({@code safety-matrix.md},
 * {@code faults.md}, {@code metrics.md}, ...): {@code integration-tests/target/docs/}, never the tracked
 * {@code docs/}, so a test run leaves the working tree as it found it and a failed run publishes nothing.
 * {@code bash docs/refresh.sh} runs the suite and copies these pages into {@code docs/} only when it passed.
 */
public final class GeneratedPages {
    /** Relative to the module directory, where Failsafe runs the tests. */
    public static final Path DIRECTORY = Path.of("target", "docs");

    private GeneratedPages() {
    }

    /** Writes {@code content} to {@code target/docs/<fileName>} and returns the file. */
    public static Path write(String fileName, String content) throws IOException {
        Files.createDirectories(DIRECTORY);
        return Files.writeString(DIRECTORY.resolve(fileName), content);
    }
}
