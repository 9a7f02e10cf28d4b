package io.github.dropwizardhikari.dropin;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationParsingException;
import io.dropwizard.configuration.ConfigurationValidationException;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import org.h2.jdbc.JdbcSQLDataException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The compatibility rule, tried on a thousand random blocks: whatever Dropwizard's own {@code DataSourceFactory}
 * accepts as {@code database:} is accepted as {@code hikari:}, starts a pool on H2 and serves {@code SELECT 1};
 * every value HikariCP cannot use as asked is adjusted with one WARN naming its path, before HikariCP sees it;
 * whatever Dropwizard refuses is refused too, except blocks that Dropwizard refuses only because of its own size
 * defaults ({@code hikari:} does not share them).
 *
 * <p>The run is seeded: {@code -Ddropin.seed=N} repeats one, {@code -Ddropin.blocks=N} changes its length.
 * The counts go to the output and to {@code target/generated-blocks.txt}.</p>
 */
class GeneratedBlocksTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, generated blocks whose values are adjusted or ignored."
            + " WARN and ERROR lines in this log are expected.");
    }

    private static final long DEFAULT_SEED = 20_261_123L;
    private static final int DEFAULT_BLOCKS = 1_000;
    private static final int DEFAULT_MAX_SIZE = 10;
    private static final Pattern ADJUSTED = Pattern.compile("hikari\\.[A-Za-z]+ is (.+?); using (.+?) instead: .+",
        Pattern.DOTALL);
    private static final Pattern DROPWIZARD_FIELD_IN_MESSAGE = Pattern.compile("\\.([A-Za-z]+) must be");

    private final List<String> failures = new ArrayList<>();

    @Test
    void everyBlockDropwizardAcceptsStartsAsHikariAndEveryOtherIsRefused() throws Exception {
        long seed = Long.getLong("dropin.seed", DEFAULT_SEED);
        int blocks = Integer.getInteger("dropin.blocks", DEFAULT_BLOCKS);
        System.out.println("GeneratedBlocksTest: seed " + seed + ", " + blocks + " blocks");
        BlockGenerator generator = new BlockGenerator(seed, "gen");
        BlockReport report = new BlockReport(seed);

        try (CapturedWarnings warnings = new CapturedWarnings()) {
            for (int i = 0; i < blocks; i++) {
                GeneratedBlock block = generator.next(i);
                report.block(block);
                try {
                    judge(block, report, warnings);
                } catch (Exception | AssertionError e) {
                    failures.add(block + "hikari: WARNs " + warnings.messages() + "\n  failed: " + e);
                }
            }
        }

        System.out.println(report.text());
        report.write(Path.of("target", "generated-blocks.txt"));
        assertThat(failures.size()).as("blocks that broke the rule (seed %d): %d of %d; the first ones:%n%s", seed,
            failures.size(), blocks, String.join("\n", failures.subList(0, Math.min(10, failures.size()))))
            .isZero();
        // the generator must have tried both sides of the rule and every field of Dropwizard's factory
        assertThat(report.acceptedByDropwizard()).isGreaterThan(blocks / 4);
        assertThat(report.refusedByBoth()).isGreaterThan(blocks / 10);
        assertThat(report.acceptedWithAdjustments()).isGreaterThan(blocks / 10);
        assertThat(report.defaultCaused()).isPositive();
        assertThat(report.acceptedByHikari()).isEqualTo(report.acceptedByDropwizard() + report.defaultCaused());
        assertThat(report.poolsStarted() + report.isolationNoneRefusedByH2()).isEqualTo(report.acceptedByHikari());
        assertThat(report.stated().keySet()).containsExactlyInAnyOrderElementsOf(DropwizardFields.all());
    }

    private void judge(GeneratedBlock block, BlockReport report, CapturedWarnings warnings) throws Exception {
        Optional<ConfigurationException> dropwizard = refusal(() -> PoolBlocks.database(block.yaml("database")));
        warnings.clear();
        HikariDataSourceFactory factory = null;
        ConfigurationException hikariRefusal = null;
        try {
            factory = PoolBlocks.hikari(block.yaml("hikari"));
        } catch (ConfigurationException e) {
            hikariRefusal = e;
        }

        if (dropwizard.isEmpty()) {
            report.countAcceptedByDropwizard();
        } else if (refusedOnlyForDropwizardsSizeDefaults(block)) {
            report.countDefaultCaused();
            if (refusedWithLeftOutMinSizeAtMaxSize(block)) {
                report.countDefaultCausedOnlyBelowStatedInitialSize();
            }
        } else {
            assertThat(hikariRefusal).as("hikari: must refuse what Dropwizard refuses: %s",
                dropwizard.get().getMessage()).isNotNull();
            assertThat(hikariRefusal).isInstanceOfAny(ConfigurationValidationException.class,
                ConfigurationParsingException.class);
            assertThat(namedFields(hikariRefusal.getMessage(), "hikari", false))
                .as("hikari's error names one of Dropwizard's fields by its full path:%n%s%nDropwizard said:%n%s",
                    hikariRefusal.getMessage(), dropwizard.get().getMessage())
                .containsAnyElementsOf(namedFields(dropwizard.get().getMessage(), "database", true));
            report.countRefusedByBoth();
            return;
        }
        assertThat(hikariRefusal).as("hikari: must accept this block").isNull();
        report.countAcceptedByHikari();
        checkAdjustments(block, Objects.requireNonNull(factory), report, warnings);
        startAndQuery(block, factory, report);
        assertThat(warnings.hikariConfigurationWarnings()).as("HikariCP is handed no value it warns about").isEmpty();
        checkTomcatOnlyWarnings(block, report, warnings);
    }

    /**
     * Dropwizard's rules on sizes apply to the values a block states; {@code hikari:} fills what a block leaves
     * out with its own defaults (maxSize 10, or the largest stated minSize/initialSize above it; minSize =
     * maxSize). A refusal is Dropwizard's defaults' doing when Dropwizard accepts the block completed with those
     * values, a left-out minSize taken no higher than a stated initialSize (HikariCP has no initial size: it
     * fills the pool to minSize) and a left-out initialSize taken equal to the completed minSize.
     */
    private static boolean refusedOnlyForDropwizardsSizeDefaults(GeneratedBlock block) {
        Optional<Integer> initial = block.size("initialSize");
        Optional<Integer> min = block.size("minSize");
        Optional<Integer> max = block.size("maxSize");
        if (initial.isPresent() && min.isPresent() && max.isPresent()) {
            return false;
        }
        int completedMax = max.orElseGet(() -> expectedDefaultMaxSize(block));
        int completedMin = min.orElseGet(() -> Math.min(completedMax, initial.orElse(completedMax)));
        int completedInitial = initial.orElse(completedMin);
        GeneratedBlock completed = block.with(Map.of("maxSize", String.valueOf(completedMax),
            "minSize", String.valueOf(completedMin), "initialSize", String.valueOf(completedInitial)));
        return refusal(() -> PoolBlocks.database(completed.yaml("database"))).isEmpty();
    }

    /**
     * The same completion but with a left-out minSize at hikari's maxSize even above a stated initialSize
     * ({@code initialSize: 3} alone): Dropwizard refuses that, the rule on stated values accepts it. Counted apart.
     */
    private static boolean refusedWithLeftOutMinSizeAtMaxSize(GeneratedBlock block) {
        if (block.states("minSize") || !block.states("initialSize")) {
            return false;
        }
        int completedMax = block.size("maxSize").orElseGet(() -> expectedDefaultMaxSize(block));
        GeneratedBlock completed = block.with(Map.of("maxSize", String.valueOf(completedMax),
            "minSize", String.valueOf(completedMax)));
        return refusal(() -> PoolBlocks.database(completed.yaml("database"))).isPresent();
    }

    private static int expectedDefaultMaxSize(GeneratedBlock block) {
        int largest = DEFAULT_MAX_SIZE;
        for (String field : List.of("minSize", "initialSize")) {
            largest = Math.max(largest, block.size(field).orElse(0));
        }
        return largest;
    }

    private static void checkAdjustments(GeneratedBlock block, HikariDataSourceFactory factory, BlockReport report,
                                         CapturedWarnings warnings) {
        HikariConfig config = factory.toHikariConfig(new MetricRegistry(), "gen-" + block.index());
        assertThat(AdjustableValues.afterValidation(config)).as("HikariCP's validate() changed the configuration")
            .isEqualTo(AdjustableValues.of(config));

        boolean adjusted = false;
        for (MappedField field : MappedField.values()) {
            Optional<String> asked = block.scalar(field.yamlName());
            if (asked.isEmpty()) {
                continue;
            }
            String path = "hikari." + field.yamlName();
            Object used = field.used(config, factory);
            List<String> warned = warnings.startingWith(path);
            if (Objects.equals(field.asked(asked.get()), used)) {
                warned.forEach(message -> report.warningOnUnchangedValue(field.yamlName()));
                continue;
            }
            adjusted = true;
            assertThat(warned).as("%s: asked %s, used %s: exactly one WARN at validation time", path, asked.get(),
                used).hasSize(1);
            assertStatesAskedAndUsed(warned.get(0), field.asked(asked.get()), used);
            report.adjustedWarning(field.yamlName(), warned.get(0));
        }
        if (block.states("properties")) {
            assertThat(MappedField.usedProperties(config)).as("hikari.properties")
                .isEqualTo(new TreeMap<>(block.map("properties")));
        }
        if (!block.states("maxSize")) {
            int expected = expectedDefaultMaxSize(block);
            assertThat(config.getMaximumPoolSize()).as("maxSize left out").isEqualTo(expected);
            if (expected != DEFAULT_MAX_SIZE) {
                adjusted = true;
                List<String> warned = warnings.startingWith("hikari.maxSize");
                assertThat(warned).as("maxSize raised from its default to %d", expected).hasSize(1);
                assertStatesAskedAndUsed(warned.get(0), DEFAULT_MAX_SIZE, expected);
                report.adjustedWarning("maxSize", warned.get(0));
            }
        }
        if (!block.states("minSize")) {
            assertThat(config.getMinimumIdle()).as("minSize left out: a fixed-size pool")
                .isEqualTo(config.getMaximumPoolSize());
        }
        if (adjusted) {
            report.countAcceptedWithAdjustments();
        }
    }

    /**
     * Starts the pool and borrows once. H2 has no isolation level NONE: a block asking for it cannot start on
     * H2 with Dropwizard's own pool either, so there the pool must fail with H2's own error, passed through.
     */
    private static void startAndQuery(GeneratedBlock block, HikariDataSourceFactory factory, BlockReport report)
        throws Exception {
        ManagedDataSource dataSource = factory.build(new MetricRegistry(), "gen-" + block.index());
        try {
            if (block.scalar("defaultTransactionIsolation").filter("NONE"::equals).isPresent()) {
                if (block.size("initialSize").filter(size -> size == 0).isPresent()) {
                    // it opens nothing at start, as under database:, and meets the refusal at the first borrow,
                    // which waits maxWaitForConnection for a connection that cannot be set up
                    factory.setMaxWaitForConnection(io.dropwizard.util.Duration.seconds(1));
                    ManagedDataSource lazy = factory.build(new MetricRegistry(), "gen-lazy-" + block.index());
                    try {
                        lazy.start();
                        assertThatThrownBy(() -> lazy.getConnection().close())
                            .hasRootCauseInstanceOf(JdbcSQLDataException.class)
                            .rootCause().hasMessageContaining("isolation level");
                    } finally {
                        lazy.stop();
                    }
                } else {
                    assertThatThrownBy(dataSource::start).hasRootCauseInstanceOf(JdbcSQLDataException.class)
                        .rootCause().hasMessageContaining("isolation level");
                }
                report.countIsolationNoneRefusedByH2();
                return;
            }
            dataSource.start();
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                 ResultSet result = statement.executeQuery("SELECT 1")) {
                assertThat(result.next()).isTrue();
                assertThat(result.getInt(1)).isEqualTo(1);
            }
            report.countPoolStarted();
        } finally {
            dataSource.stop();
        }
    }

    /**
     * The WARN of an adjusted value says {@code <path> is <asked>; using <used> instead: <why>}, each value in
     * Dropwizard's own notation: durations as {@code Duration} reads them, sizes as numbers.
     */
    private static void assertStatesAskedAndUsed(String message, Object asked, Object used) {
        Matcher parts = ADJUSTED.matcher(message);
        assertThat(parts.matches()).as("'<path> is <asked>; using <used> instead: <why>': %s", message).isTrue();
        String askedText = parts.group(1).replace(" (default)", "");
        String usedText = parts.group(2);
        if (used instanceof Long) {
            assertThat(Duration.parse(askedText).toMilliseconds()).as("asked, in %s", message).isEqualTo(asked);
            assertThat(Duration.parse(usedText).toMilliseconds()).as("used, in %s", message).isEqualTo(used);
        } else {
            assertThat(askedText).as("asked, in %s", message).isEqualTo(String.valueOf(asked));
            assertThat(usedText).as("used, in %s", message).isEqualTo(String.valueOf(used));
        }
    }

    /**
     * Each Tomcat-only key keeps its one WARN, at validation or when the pool is built; {@code initialSize: 0},
     * {@code ignoreExceptionOnPreLoad: true} and the abandoned-connection keys ({@code removeAbandoned},
     * {@code removeAbandonedTimeout}, {@code logAbandonedConnections}) mean what they mean under {@code database:}
     * and warn about nothing.
     */
    private static void checkTomcatOnlyWarnings(GeneratedBlock block, BlockReport report,
                                                CapturedWarnings warnings) {
        for (String field : DropwizardFields.tomcatOnly()) {
            if (block.states(field)) {
                List<String> warned = warnings.startingWith("hikari." + field);
                if (honoured(block, field)) {
                    assertThat(warned).as("WARNs for %s: %s", field, block.scalar(field).orElseThrow()).isEmpty();
                    continue;
                }
                assertThat(warned).as("the WARN for Tomcat-only %s", field).hasSize(1);
                report.tomcatOnlyWarning(field, warned.get(0));
            }
        }
    }

    private static boolean honoured(GeneratedBlock block, String field) {
        String value = block.scalar(field).orElse("").trim();
        return field.equals("initialSize") && value.equals("0")
            || field.equals("ignoreExceptionOnPreLoad") && value.equals("true")
            || List.of("removeAbandoned", "removeAbandonedTimeout", "logAbandonedConnections").contains(field);
    }

    /**
     * The fields an error message names by path ({@code hikari.minSize}); Dropwizard's own cross-field rules name
     * theirs in the message ({@code .minSize must be ...}), which counts for Dropwizard's messages only.
     */
    private static Set<String> namedFields(String message, String root, boolean ruleMessages) {
        Set<String> fields = new LinkedHashSet<>();
        Matcher path = Pattern.compile(Pattern.quote(root) + "\\.([A-Za-z]+)").matcher(message);
        while (path.find()) {
            fields.add(path.group(1));
        }
        Matcher rule = DROPWIZARD_FIELD_IN_MESSAGE.matcher(message);
        while (ruleMessages && rule.find()) {
            fields.add(rule.group(1));
        }
        return fields;
    }

    private static Optional<ConfigurationException> refusal(Parse parse) {
        try {
            parse.run();
            return Optional.empty();
        } catch (ConfigurationException e) {
            return Optional.of(e);
        } catch (Exception e) {
            throw new IllegalStateException("parsing failed outside Dropwizard's configuration errors", e);
        }
    }

    @FunctionalInterface
    private interface Parse {
        void run() throws Exception;
    }
}
