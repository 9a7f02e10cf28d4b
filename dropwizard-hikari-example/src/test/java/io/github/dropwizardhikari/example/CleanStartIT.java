package io.github.dropwizardhikari.example;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built jar, started as the README says on its embedded default, prints no WARN or ERROR line: a user's first
 * start is the first log they judge the library by. Runs after {@code package}, on the shaded jar itself, because
 * shading is what loses the version information some libraries check at start.
 */
class CleanStartIT {
    // Dropwizard's own layout ("WARN  [date] logger: ..."), logback's status lines ("|-WARN in ...") and the JVM's
    private static final Pattern WARNING_LINE = Pattern.compile("^(WARN|ERROR)\\b.*|.*\\|-(WARN|ERROR) .*|^WARNING: .*");
    private static final Duration START_LIMIT = Duration.ofSeconds(90);

    @Test
    void theShadedJarStartsOnItsEmbeddedDefaultWithoutAWarning() throws Exception {
        assertThat(ExampleJar.jar()).as("the shaded jar that `package` builds").exists();
        List<String> lines;
        try (ExampleJar app = new ExampleJar()) {
            assertThat(app.application("/questions?user=1", START_LIMIT)).as("output in %s", app.output)
                .isEqualTo(200);
            assertThat(app.admin("/healthcheck", START_LIMIT).statusCode()).as("healthy").isEqualTo(200);
            lines = app.outputLines();
        }
        assertThat(lines).as("the application started").anyMatch(line -> line.contains("Started application"));
        assertThat(lines).as("WARN and ERROR lines of a plain start")
            .filteredOn(line -> WARNING_LINE.matcher(line).matches())
            .isEmpty();
    }
}
