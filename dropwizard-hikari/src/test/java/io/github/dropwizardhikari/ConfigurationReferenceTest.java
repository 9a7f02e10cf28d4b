package io.github.dropwizardhikari;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyName;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.dropwizard.jackson.Jackson;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration reference (docs/configuration.md), the class javadoc's table and the factory agree: every
 * YAML property is documented once, with its HikariCP aliases and its default.
 */
class ConfigurationReferenceTest {
    private static final Path REFERENCE = Path.of("..", "docs", "configuration.md");
    private static final Path SOURCE = Path.of("src", "main", "java", "io", "github", "dropwizardhikari",
        "HikariDataSourceFactory.java");

    /** One documented setting: name, aliases and default as written. */
    record Row(String name, List<String> aliases, String defaultText) {
    }

    @Test
    void theReferenceDocumentsEveryPropertyWithItsAliasesAndDefault() throws Exception {
        Map<String, Row> documented = new LinkedHashMap<>();
        referenceTable("| Field | HikariCP alias |").forEach(row -> documented.put(row.name(), row));
        referenceTable("| Tomcat-only field |").forEach(row -> documented.put(row.name(), row));
        Map<String, List<String>> properties = deserializableProperties();

        assertThat(documented.keySet()).containsExactlyInAnyOrderElementsOf(properties.keySet());
        HikariDataSourceFactory defaults = new HikariDataSourceFactory();
        for (Row row : documented.values()) {
            assertThat(row.aliases()).as("aliases of %s", row.name())
                .containsExactlyInAnyOrderElementsOf(properties.get(row.name()));
            assertDefault(defaults, row);
        }
    }

    @Test
    void theJavadocTableIsTheReferenceTable() throws Exception {
        List<Row> reference = referenceTable("| Field | HikariCP alias |");
        List<Row> javadoc = javadocTable();

        assertThat(javadoc).isEqualTo(reference);
    }

    private static void assertDefault(HikariDataSourceFactory defaults, Row row) throws Exception {
        String text = row.defaultText();
        if (text.startsWith("see ")) {
            return;
        }
        String actual = render(getter(row.name()).invoke(defaults));
        if (text.startsWith("same as ")) {
            String other = text.substring("same as ".length()).trim();
            assertThat(actual).as("default of %s, the same as %s", row.name(), other)
                .isEqualTo(render(getter(other).invoke(defaults)));
            return;
        }
        // "5 seconds, or maxWaitForConnection if shorter", "none (driver default)": the value comes first
        String value = text.split(" \\(|, or ")[0].trim();
        assertThat(actual).as("default of %s", row.name()).isEqualTo(value);
    }

    private static Method getter(String property) throws NoSuchMethodException {
        return getter(HikariDataSourceFactory.class, property);
    }

    /** The property's JSON accessor: a method named for it in {@code @JsonProperty}, else its bean getter. */
    private static Method getter(Class<?> type, String property) throws NoSuchMethodException {
        for (Method method : type.getDeclaredMethods()) {
            JsonProperty named = method.getAnnotation(JsonProperty.class);
            if (named != null && named.value().equals(property) && method.getParameterCount() == 0) {
                method.setAccessible(true);
                return method;
            }
        }
        String suffix = Character.toUpperCase(property.charAt(0)) + property.substring(1);
        try {
            return type.getMethod("get" + suffix);
        } catch (NoSuchMethodException e) {
            return type.getMethod("is" + suffix);
        }
    }

    private static String render(Object value) {
        if (value instanceof Optional<?> optional) {
            return optional.map(ConfigurationReferenceTest::render).orElse("none");
        }
        if (value == null || "".equals(value) || (value instanceof Map<?, ?> map && map.isEmpty())
            || (value instanceof List<?> list && list.isEmpty())) {
            return "none";
        }
        if (value instanceof List<?> list) {
            return list.stream().map(item -> "\"" + item + "\"").collect(Collectors.joining(", ", "[", "]"));
        }
        // an enum as YAML writes it (PoolerMode: "none"; TransactionIsolation: "DEFAULT")
        return value.toString();
    }

    /** Every property Jackson can set, with its aliases. */
    private static Map<String, List<String>> deserializableProperties() {
        return deserializableProperties(HikariDataSourceFactory.class);
    }

    private static Map<String, List<String>> deserializableProperties(Class<?> type) {
        ObjectMapper mapper = Jackson.newObjectMapper();
        BeanDescription description = mapper.getDeserializationConfig()
            .introspect(mapper.constructType(type));
        Map<String, List<String>> properties = new LinkedHashMap<>();
        for (BeanPropertyDefinition property : description.findProperties()) {
            if (property.hasSetter() || property.hasField()) {
                properties.put(property.getName(), property.findAliases().stream()
                    .map(PropertyName::getSimpleName).collect(Collectors.toList()));
            }
        }
        return properties;
    }

    /** The rows of the reference's table whose header starts with {@code header}: name, aliases, default. */
    private static List<Row> referenceTable(String header) throws Exception {
        List<String> lines = Files.readAllLines(REFERENCE);
        int start = lines.indexOf(lines.stream().filter(line -> line.startsWith(header)).findFirst()
            .orElseThrow(() -> new AssertionError(REFERENCE + " has no table " + header)));
        boolean withAliases = header.contains("alias");
        List<Row> rows = new ArrayList<>();
        for (String line : lines.subList(start + 2, lines.size())) {
            if (!line.startsWith("|")) {
                break;
            }
            String[] cells = line.substring(1).split("\\|");
            String name = plain(cells[0]);
            List<String> aliases = withAliases ? names(cells[1]) : List.of();
            rows.add(new Row(name, aliases, plain(cells[withAliases ? 2 : 1])));
        }
        return rows;
    }

    private static final Pattern JAVADOC_ROW =
        Pattern.compile("<tr><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td><td>");

    private static List<Row> javadocTable() throws Exception {
        String source = Files.readString(SOURCE);
        String javadoc = source.substring(source.indexOf("<table>"), source.indexOf("</table>"))
            .replaceAll("\\n \\* ", " ");
        List<Row> rows = new ArrayList<>();
        Matcher row = JAVADOC_ROW.matcher(javadoc);
        while (row.find()) {
            rows.add(new Row(plain(row.group(1)), names(row.group(2)), plain(row.group(3))));
        }
        return rows;
    }

    private static List<String> names(String cell) {
        String text = plain(cell);
        return text.isEmpty() ? List.of() : List.of(text.split(",\\s*"));
    }

    /** The text of a cell without Markdown or javadoc markup. */
    private static String plain(String cell) {
        return cell.replaceAll("\\{@code\\s+([^}]*)}", "$1")
            .replaceAll("\\[([^]]*)]\\([^)]*\\)", "$1")
            .replace("`", "").replace("**", "")
            .replace("&lt;", "<").replace("&gt;", ">").replace("&le;", "≤").replace("&amp;", "&")
            .replaceAll("\\s+", " ").trim();
    }
}
