package io.github.dropwizardhikari.admission;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import static io.github.dropwizardhikari.admission.AdmissionFixtures.admission;
import static io.github.dropwizardhikari.admission.AdmissionFixtures.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The admission extension's YAML: every field read, every default, every rule named by its full path. */
class AdmissionConfigurationTest {
    @Test
    void fullConfigurationSetsEverySetting() throws Exception {
        AdmissionExtension admission = admission(parse("full.yml"));

        assertThat(admission.getMaxConcurrentRequests()).contains(6);
        assertThat(admission.getMaxWait()).contains(Duration.milliseconds(750));
        assertThat(admission.getMaxWaitingRequests()).isEqualTo(100);
        assertThat(admission.getPaths()).containsExactly("/questions/*", "/answers");
        assertThat(admission.getRetryAfter()).isEqualTo(Duration.seconds(3));
    }

    @Test
    void namingTheTypeAloneGivesEveryDefault() throws Exception {
        HikariDataSourceFactory factory = parse("minimal.yml");

        assertThat(factory.getExtensions()).hasSize(1).first().isInstanceOf(AdmissionExtension.class);
        AdmissionExtension admission = admission(factory);
        assertThat(admission.getMaxConcurrentRequests()).isEmpty();
        assertThat(admission.getMaxWait()).isEmpty();
        assertThat(admission.getMaxWaitingRequests()).isEqualTo(1024);
        assertThat(admission.getPaths()).containsExactly("/*");
        assertThat(admission.getRetryAfter()).isEqualTo(Duration.seconds(1));
    }

    /**
     * Each value as JSON shows it, in the extension's own {@code toString()} and in the block's, which shows its
     * extensions as JSON.
     */
    @Test
    void toStringShowsTheValueOfEverySetting() throws Exception {
        HikariDataSourceFactory factory = parse("full.yml");
        AdmissionExtension admission = admission(factory);
        JsonNode json = Jackson.newObjectMapper().valueToTree(admission);

        String text = admission.toString();
        String blockText = factory.toString();

        List<String> expected = new ArrayList<>();
        List<String> expectedInBlock = new ArrayList<>();
        json.fields().forEachRemaining(setting -> {
            if (setting.getValue().isArray()) {
                List<String> elements = new ArrayList<>();
                setting.getValue().elements().forEachRemaining(element -> elements.add(element.asText()));
                expected.add(setting.getKey() + "=" + elements);
            } else if (!setting.getKey().equals("type")) {
                expected.add(setting.getKey() + "=" + setting.getValue().asText());
            }
            expectedInBlock.add("\"" + setting.getKey() + "\":" + setting.getValue());
        });
        assertThat(expected).as("admission's settings").hasSize(5)
            .contains("maxConcurrentRequests=6", "maxWait=750 milliseconds", "maxWaitingRequests=100",
                "paths=[/questions/*, /answers]", "retryAfter=3 seconds");
        assertThat(expected).allSatisfy(setting ->
            assertThat(text).as(setting).containsPattern("[{ ]" + Pattern.quote(setting) + "[,}]"));
        assertThat(expectedInBlock).contains("\"type\":\"admission\"", "\"maxConcurrentRequests\":6")
            .allSatisfy(setting -> assertThat(blockText).as(setting).contains(setting));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "invalid_admission_limit.yml   | hikari.extensions[0].maxConcurrentRequests must be greater than or equal to 1",
        "invalid_admission_paths.yml   | hikari.extensions[0].paths must not be empty",
        // the switch is gone: leaving the entry out is what turns admission off
        "invalid_admission_enabled.yml | enabled",
    })
    void anInvalidValueIsRefusedNamingItsPath(String fixture, String message) {
        assertThatThrownBy(() -> parse(fixture))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining(message);
    }
}
