package io.github.dropwizardhikari.admission;

import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.dropwizard.jackson.Jackson;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The table of docs/admission.md lists every setting of the extension, each with the default the extension has (a
 * default that reads "the pool's ..." is one it leaves unset, so that the pool's own setting applies).
 */
class AdmissionReferenceTest {
    private static final Path PAGE = Path.of("..", "docs", "admission.md");

    @Test
    void theTableListsEverySettingWithItsDefault() throws Exception {
        List<String> page = Files.readAllLines(PAGE);
        int start = page.indexOf(page.stream().filter(row -> row.startsWith("| Field (in `- type: admission`"))
            .findFirst().orElseThrow(() -> new AssertionError(PAGE + " has no table of the extension's fields")));
        Map<String, String> documented = new LinkedHashMap<>();
        for (String row : page.subList(start + 2, page.size())) {
            if (!row.startsWith("|")) {
                break;
            }
            String[] cells = row.substring(1).split("\\|");
            documented.put(plain(cells[0]), plain(cells[1]));
        }

        var mapper = Jackson.newObjectMapper();
        List<String> properties = mapper.getDeserializationConfig()
            .introspect(mapper.constructType(AdmissionExtension.class)).findProperties().stream()
            .filter(BeanPropertyDefinition::hasSetter).map(BeanPropertyDefinition::getName).toList();
        assertThat(documented.keySet()).containsExactlyInAnyOrderElementsOf(properties);
        AdmissionExtension defaults = new AdmissionExtension();
        for (Map.Entry<String, String> row : documented.entrySet()) {
            String name = row.getKey();
            Method getter = AdmissionExtension.class.getMethod("get" + Character.toUpperCase(name.charAt(0))
                + name.substring(1));
            String expected = row.getValue().startsWith("the pool's ") ? "none" : row.getValue();
            assertThat(render(getter.invoke(defaults))).as("default of %s", name).isEqualTo(expected);
        }
    }

    private static String plain(String cell) {
        return cell.replace("`", "").trim();
    }

    private static String render(Object value) {
        if (value instanceof Optional<?> optional) {
            return optional.map(AdmissionReferenceTest::render).orElse("none");
        }
        if (value instanceof List<?> list) {
            return list.stream().map(element -> "\"" + element + "\"").toList().toString().replace(" ", "");
        }
        return String.valueOf(value);
    }
}
