package io.github.dropwizardhikari.docs;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link in {@code README.md}, {@code CONTRIBUTING.md}, {@code CHANGELOG.md} and {@code docs/*.md}
 * leads somewhere: the file or directory exists, and an {@code #anchor} names a heading of the page it points to,
 * by GitHub's rules (lowercase, spaces to {@code -}, punctuation other than {@code -} and {@code _} dropped, a
 * repeated heading numbered {@code -1}, {@code -2}, ...). Links inside code are not links and are not checked.
 */
class DocumentationLinksTest {
    private static final Path ROOT = repositoryRoot();
    // [text](target) and ![alt](target), with an optional "title"
    private static final Pattern LINK = Pattern.compile("!?\\[(?:[^\\[\\]]|\\[[^\\]]*])*]\\(\\s*<?([^)\\s>]+)>?"
        + "(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern INLINE_CODE = Pattern.compile("(`+)(?:(?!\\1).)+?\\1");
    private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");

    @Test
    void everyRelativeLinkAndAnchorResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path document : documents()) {
            for (Link link : links(document)) {
                checked++;
                String problem = problem(document, link.target());
                if (problem != null) {
                    broken.add(ROOT.relativize(document) + ":" + link.line() + ": " + link.target() + ": " + problem);
                }
            }
        }

        assertThat(checked).as("links checked").isPositive();
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    void anchorsFollowGitHubsRules() {
        assertThat(slug("Migrating a `database:` block")).isEqualTo("migrating-a-database-block");
        assertThat(slug("What differs from Dropwizard's Tomcat pool")).isEqualTo(
            "what-differs-from-dropwizards-tomcat-pool");
        assertThat(slug("Behind PgBouncer (transaction mode)")).isEqualTo("behind-pgbouncer-transaction-mode");
        assertThat(slug("[0.1.0] - Unreleased")).isEqualTo("010---unreleased");
        assertThat(slug("Fair borrowing: the gate on and off")).isEqualTo("fair-borrowing-the-gate-on-and-off");
        assertThat(slug("snake_case and [a link](x.md)")).isEqualTo("snake_case-and-a-link");
    }

    /** Why {@code target}, linked from {@code document}, leads nowhere; {@code null} when it resolves. */
    private static String problem(Path document, String target) throws IOException {
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
            return null; // https:, mailto: ...: not checked here
        }
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = path.isEmpty() ? document : document.getParent().resolve(path).normalize();
        if (!resolved.startsWith(ROOT)) {
            return "outside the repository";
        }
        if (!Files.exists(resolved)) {
            return "no such file";
        }
        if (anchor == null) {
            return null;
        }
        if (!resolved.toString().endsWith(".md")) {
            return "an anchor into a file that is not Markdown";
        }
        Set<String> anchors = anchors(resolved);
        return anchors.contains(anchor) ? null : "no heading with this anchor in " + ROOT.relativize(resolved);
    }

    record Link(int line, String target) {
    }

    /** The links of a page, outside fenced code blocks and inline code. */
    private static List<Link> links(Path document) throws IOException {
        List<Link> links = new ArrayList<>();
        List<String> lines = prose(document);
        for (int i = 0; i < lines.size(); i++) {
            Matcher link = LINK.matcher(INLINE_CODE.matcher(lines.get(i)).replaceAll("code"));
            while (link.find()) {
                links.add(new Link(i + 1, link.group(1)));
            }
        }
        return links;
    }

    /** The anchors GitHub gives the headings of a page. */
    static Set<String> anchors(Path document) throws IOException {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : prose(document)) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = slug(heading.group(2));
                int count = seen.merge(slug, 1, Integer::sum);
                anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
            }
        }
        return anchors;
    }

    /** GitHub's anchor for a heading's text. */
    static String slug(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)]\\([^)]*\\)", "$1") // a link's text only
            .replaceAll("<[^>]+>", "")
            .toLowerCase(Locale.ROOT);
        StringBuilder slug = new StringBuilder();
        text.codePoints().forEach(c -> {
            if (c == ' ') {
                slug.append('-');
            } else if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                slug.appendCodePoint(c);
            }
        });
        return slug.toString();
    }

    /** A page's lines, with those of fenced code blocks blanked (line numbers stay). */
    static List<String> prose(Path document) throws IOException {
        List<String> lines = new ArrayList<>();
        String fence = null;
        for (String line : Files.readAllLines(document)) {
            String stripped = line.strip();
            if (fence == null && (stripped.startsWith("```") || stripped.startsWith("~~~"))) {
                fence = stripped.substring(0, 3);
                lines.add("");
            } else if (fence != null) {
                if (stripped.startsWith(fence) && stripped.replace(fence.substring(0, 1), "").isEmpty()) {
                    fence = null;
                }
                lines.add("");
            } else {
                lines.add(line);
            }
        }
        return lines;
    }

    private static List<Path> documents() throws IOException {
        List<Path> documents = new ArrayList<>();
        for (String name : List.of("README.md", "CONTRIBUTING.md", "CHANGELOG.md")) {
            Path document = ROOT.resolve(name);
            assertThat(document).as("a page the documentation links from").exists();
            documents.add(document);
        }
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(path -> path.toString().endsWith(".md")).sorted().forEach(documents::add);
        }
        return documents;
    }

    /** The directory that holds {@code mvnw}, found from the working directory up. */
    static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.exists(dir.resolve("mvnw"))) {
                return dir;
            }
        }
        throw new IllegalStateException("no mvnw above " + Path.of("").toAbsolutePath());
    }
}
