package io.github.dropwizardhikari.example.readme;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java snippets of the documentation are the classes of this package and the core's example extension
 * ({@code BorrowCountingExtension}, in its tests), which the build compiles: every
 * {@code ```java} block of {@code README.md}, {@code CONTRIBUTING.md} and {@code docs/*.md} appears line for line
 * (leading indentation aside) in one of them, and each application and configuration class here is shown whole
 * (from its imports to its last brace) in a block. A change to either side that the other does not follow fails.
 */
class ReadmeSnippetsTest {
    private static final Path ROOT = repositoryRoot();
    private static final Path SOURCES = ROOT.resolve(Path.of("dropwizard-hikari-example", "src", "test", "java",
        "io", "github", "dropwizardhikari", "example", "readme"));
    /** The extension CONTRIBUTING shows, which the core's own tests build and name in YAML. */
    private static final Path CORE_EXTENSION = ROOT.resolve(Path.of("dropwizard-hikari", "src", "test", "java", "io",
        "github", "dropwizardhikari", "BorrowCountingExtension.java"));
    /** The entity the Hibernate snippet names, shown to nobody. */
    private static final String NOT_SHOWN = "Person.java";

    /** A {@code ```java} block: where it is and its lines, without leading or trailing blanks on each. */
    record Block(String where, List<String> lines) {
    }

    @Test
    void everyJavaBlockIsInACompiledClass() throws IOException {
        Map<String, List<String>> sources = sources();
        List<Block> blocks = javaBlocks();

        assertThat(blocks).as("java blocks in the documentation").isNotEmpty();
        for (Block block : blocks) {
            assertThat(sources.values()).as("%s: a java block that no class of %s contains; it starts with:%n%s",
                    block.where(), ROOT.relativize(SOURCES), String.join("\n", block.lines().subList(0,
                        Math.min(5, block.lines().size()))))
                .anySatisfy(source -> assertThat(Collections.indexOfSubList(source, block.lines()))
                    .isNotNegative());
        }
    }

    @Test
    void everyApplicationAndConfigurationClassIsShownWhole() throws IOException {
        List<List<String>> shown = javaBlocks().stream().map(Block::lines).toList();

        for (Map.Entry<String, List<String>> source : sources().entrySet()) {
            if (source.getKey().equals(NOT_SHOWN) || source.getKey().endsWith("Test.java")) {
                continue;
            }
            List<String> lines = source.getValue();
            // from the first import to the end: what a reader copies
            List<String> body = lines.subList(firstImport(lines), lines.size());
            assertThat(shown.contains(body)).as("%s is shown whole in a java block of the documentation",
                source.getKey()).isTrue();
        }
    }

    private static int firstImport(List<String> lines) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("import ")) {
                return i;
            }
        }
        throw new AssertionError("no import in a snippet class");
    }

    /**
     * The classes of this package and the core's example extension, by file name, each as its lines without leading
     * or trailing blanks.
     */
    private static Map<String, List<String>> sources() throws IOException {
        Map<String, List<String>> sources = new TreeMap<>();
        try (Stream<Path> files = Stream.concat(Files.list(SOURCES), Stream.of(CORE_EXTENSION))) {
            for (Path file : files.filter(path -> path.toString().endsWith(".java")).toList()) {
                List<String> lines = new ArrayList<>(Files.readAllLines(file).stream().map(String::strip).toList());
                while (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
                    lines.remove(lines.size() - 1);
                }
                sources.put(file.getFileName().toString(), lines);
            }
        }
        return sources;
    }

    private static List<Block> javaBlocks() throws IOException {
        List<Path> documents = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CONTRIBUTING.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        List<Block> blocks = new ArrayList<>();
        for (Path document : documents) {
            if (Files.exists(document)) {
                blocks.addAll(javaBlocks(document));
            }
        }
        return blocks;
    }

    private static List<Block> javaBlocks(Path document) throws IOException {
        List<String> lines = Files.readAllLines(document);
        List<Block> blocks = new ArrayList<>();
        String fence = null;
        List<String> current = null;
        int start = 0;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (fence == null) {
                if (line.startsWith("```")) {
                    fence = "```";
                    start = i + 1;
                    current = line.substring(3).strip().equals("java") ? new ArrayList<>() : null;
                }
            } else if (line.equals(fence)) {
                if (current != null) {
                    blocks.add(new Block(ROOT.relativize(document) + ":" + start, current));
                }
                fence = null;
            } else if (current != null) {
                current.add(line);
            }
        }
        return blocks;
    }

    /** The directory that holds {@code mvnw}, found from the working directory up. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("mvnw"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no mvnw above " + Path.of("").toAbsolutePath());
    }
}
