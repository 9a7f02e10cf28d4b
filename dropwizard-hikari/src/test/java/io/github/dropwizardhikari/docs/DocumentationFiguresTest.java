package io.github.dropwizardhikari.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One source for each figure: the pages the integration suite generates ({@code docs/faults.md}, ...; refreshed only
 * by {@code docs/refresh.sh}) hold the measured figures, and a page written by hand that quotes one beside a link to
 * such a page quotes it as the page holds it. In a sentence that links a generated page, a range
 * ({@code 42–267 ms}) must be the spread of one of the page's lists ({@code 42 / 266 / 267 / 244 / 204 ms}); in the
 * README every figure with its unit must also be in the page. Each run draws new figures, so the README links to them
 * rather than quote them.
 */
class DocumentationFiguresTest {
    private static final Path ROOT = DocumentationLinksTest.repositoryRoot();
    // a number with its unit, or a range of two: "2 s", "1,216–2,240 ms"
    private static final Pattern FIGURE = Pattern.compile("(?<![\\w.,/])(\\d[\\d,]*(?:\\.\\d+)?)"
        + "(?:\\s*[–-]\\s*(\\d[\\d,]*(?:\\.\\d+)?))?\\s*(ms|s)(?![\\w/])");
    // a generated page's list of one figure per run: "42 / 266 / 267 / 244 / 204 ms"
    private static final Pattern LIST = Pattern.compile("(?<![\\w.,/])(\\d[\\d,]*(?:\\.\\d+)?(?:\\s*/\\s*\\d[\\d,]*"
        + "(?:\\.\\d+)?)*)\\s*(ms|s)(?![\\w/])");
    private static final Pattern LINK = Pattern.compile("\\]\\(\\s*<?([^)\\s>#]+)");
    // a page name the integration suite writes: GeneratedPages.write("metrics.md", ...), new FaultReport("faults.md"
    private static final Pattern PAGE_NAME = Pattern.compile("\"([a-z][a-z-]*\\.md)\"");

    @Test
    void aFigureQuotedBesideALinkToAGeneratedPageIsThePages() throws IOException {
        Set<String> generated = generatedPages();
        List<String> disagreements = new ArrayList<>();
        int sentences = 0;
        for (Path document : handWrittenPages(generated)) {
            boolean readme = document.getFileName().toString().equals("README.md");
            for (String sentence : sentences(document)) {
                for (String target : linkedGeneratedPages(sentence, generated)) {
                    sentences++;
                    String page = Files.readString(document.getParent().resolve(target).normalize());
                    for (String problem : disagreements(sentence, page, readme)) {
                        disagreements.add(ROOT.relativize(document) + " quotes " + problem + " beside " + target
                            + ": " + sentence);
                    }
                }
            }
        }

        assertThat(sentences).as("sentences that link a generated page").isPositive();
        assertThat(disagreements).as("figures that disagree with the generated page they link").isEmpty();
    }

    @Test
    void aRangeIsTheSpreadOfOneListOfThePage() {
        String page = "| recovered 2102 / 2120 / 1116 / 1114 / 1118 ms after | recovered 42 / 266 / 267 / 244 / 204 ms "
            + "after | 13 / 17 ms | for 2 s |";

        assertThat(disagreements("served again 42–267 ms after, HikariCP alone 1,114–2,120 ms, Tomcat 13–17 ms",
            page, true)).isEmpty();
        assertThat(disagreements("served again 46–301 ms after, HikariCP alone 1,216–2,240 ms", page, false))
            .containsExactly("46–301 ms", "1,216–2,240 ms");
        // the spread of two lists is not a figure of the page
        assertThat(disagreements("from 13–2,120 ms", page, false)).containsExactly("13–2,120 ms");
        // in the README, a figure alone too
        assertThat(disagreements("five 2 s outages, recovered in 146 ms", page, true)).containsExactly("146 ms");
        assertThat(disagreements("five 2 s outages, recovered in 146 ms", page, false)).isEmpty();
        // a unit is part of the figure
        assertThat(disagreements("within 42–267 s", page, false)).containsExactly("42–267 s");
    }

    /** The figures of {@code sentence} that {@code page} does not hold: ranges, and in the README single figures. */
    static List<String> disagreements(String sentence, String page, boolean singlesToo) {
        List<String> problems = new ArrayList<>();
        Matcher figure = FIGURE.matcher(sentence);
        while (figure.find()) {
            String unit = figure.group(3);
            BigDecimal low = number(figure.group(1));
            boolean held = figure.group(2) == null
                ? !singlesToo || lists(page, unit).stream().anyMatch(list -> list.contains(low))
                : lists(page, unit).stream().anyMatch(list -> list.first().equals(low)
                    && list.last().equals(number(figure.group(2))));
            if (!held) {
                problems.add(figure.group());
            }
        }
        return problems;
    }

    /** Every list of figures in {@code unit} on the page, a figure alone being a list of one. */
    private static List<TreeSet<BigDecimal>> lists(String page, String unit) {
        List<TreeSet<BigDecimal>> lists = new ArrayList<>();
        Matcher list = LIST.matcher(page);
        while (list.find()) {
            if (list.group(2).equals(unit)) {
                TreeSet<BigDecimal> figures = new TreeSet<>();
                for (String figure : list.group(1).split("/")) {
                    figures.add(number(figure));
                }
                lists.add(figures);
            }
        }
        return lists;
    }

    private static BigDecimal number(String text) {
        return new BigDecimal(text.strip().replace(",", "")).stripTrailingZeros();
    }

    private static List<String> linkedGeneratedPages(String sentence, Set<String> generated) {
        List<String> targets = new ArrayList<>();
        Matcher link = LINK.matcher(sentence);
        while (link.find()) {
            String target = link.group(1);
            if (generated.contains(Path.of(target).getFileName().toString()) && !targets.contains(target)) {
                targets.add(target);
            }
        }
        return targets;
    }

    /** The pages the integration suite writes, by the names its sources give them. */
    private static Set<String> generatedPages() throws IOException {
        Set<String> pages = new TreeSet<>();
        try (Stream<Path> sources = Files.walk(ROOT.resolve("integration-tests/src/test/java"))) {
            for (Path source : sources.filter(path -> path.toString().endsWith(".java")).toList()) {
                Matcher name = PAGE_NAME.matcher(Files.readString(source));
                while (name.find()) {
                    pages.add(name.group(1));
                }
            }
        }
        assertThat(pages).as("the pages the integration suite writes")
            .contains("faults.md", "safety-matrix.md", "metrics.md")
            .allSatisfy(page -> assertThat(ROOT.resolve("docs").resolve(page)).exists());
        return pages;
    }

    private static List<Path> handWrittenPages(Set<String> generated) throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CONTRIBUTING.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md"))
                .filter(path -> !generated.contains(path.getFileName().toString())).sorted().forEach(pages::add);
        }
        return pages;
    }

    /**
     * The sentences of a page's prose, each on one line: paragraphs, list items and table rows split at each full
     * stop, not at a semicolon (a link after one names the source of the figures before it); inline code and fenced
     * blocks left out.
     */
    private static List<String> sentences(Path document) throws IOException {
        List<String> sentences = new ArrayList<>();
        StringBuilder block = new StringBuilder();
        for (String line : DocumentationLinksTest.prose(document)) {
            String stripped = line.strip();
            if (stripped.isEmpty() || stripped.startsWith("|") || stripped.matches("^([-*]|\\d+\\.)\\s.*")) {
                split(block, sentences);
            }
            block.append(' ').append(stripped.replaceAll("`[^`]*`", "code"));
            if (stripped.startsWith("|")) {
                split(block, sentences);
            }
        }
        split(block, sentences);
        return sentences;
    }

    private static void split(StringBuilder block, List<String> sentences) {
        for (String sentence : block.toString().strip().split("(?<=\\.)\\s+")) {
            if (!sentence.isBlank()) {
                sentences.add(sentence);
            }
        }
        block.setLength(0);
    }
}
