package io.github.dropwizardhikari.dropin;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library speaks and HikariCP stays quiet: where a stated setting has no effect, the library says so once per
 * pool, in the block's own names, at validation (what {@code check} runs); HikariCP is never handed a value its own
 * configuration check would warn about, so nothing is said twice or in HikariCP's words.
 */
class ConfigurationWarningsTest {

    @Test
    void aFixedPoolWithDropwizardsMinIdleTimeGetsOneWarningPerSettingAndNoneFromHikari() throws Exception {
        try (CapturedWarnings warnings = new CapturedWarnings()) {
            HikariDataSourceFactory factory = PoolBlocks.hikari(fixture("fixed_pool_with_min_idle_time.yml"));
            assertThat(warnings.startingWith("hikari.maxSize")).as("at validation, as `check` shows it")
                .singleElement().asString()
                .contains("minSize is not set", "keeps them open", "minSize: 4 for idle connections above it to close",
                    "minSize: 8 to keep this fixed pool")
                // advice the block could not follow: Dropwizard's default minSize of 10 is above this maxSize
                .doesNotContain("minSize: 10");
            assertThat(warnings.startingWith("hikari.minIdleTime")).as("at validation")
                .singleElement().asString()
                .startsWith("hikari.minIdleTime is 1 minute; using 0 seconds instead: minSize is not set")
                .contains("closes no idle connection", "set minSize below maxSize (minSize: 4, say)");

            startAndBorrow(factory, "fixed");
            startAndBorrow(factory, "fixed-again");

            assertThat(warnings.hikariConfigurationWarnings()).as("HikariCP's own configuration warnings").isEmpty();
            assertThat(warnings.messages()).as("one warning per setting without effect, however often built")
                .hasSize(2);
        }
    }

    @Test
    void dropwizardsDefaultsWrittenOutStartWithoutAWarningFromHikari() throws Exception {
        try (CapturedWarnings warnings = new CapturedWarnings()) {
            HikariDataSourceFactory factory = PoolBlocks.hikari(fixture("dropwizard_defaults_written_out.yml"));
            startAndBorrow(factory, "defaults");
            startAndBorrow(factory, "defaults-again");

            assertThat(warnings.hikariConfigurationWarnings()).as("HikariCP's own configuration warnings").isEmpty();
            List<String> messages = warnings.messages();
            assertThat(messages).as("every warning names a setting of the block by its path")
                .allMatch(message -> message.startsWith("hikari."));
            assertThat(messages.stream().map(message -> message.split("[ ;]", 2)[0]))
                .as("at most one warning per setting").doesNotHaveDuplicates();
            assertThat(warnings.startingWith("hikari.minIdleTime")).as("minSize 10 of maxSize 100: idle ones close")
                .isEmpty();
        }
    }

    /**
     * {@code db migrate} and {@code db status} size the pool at one connection themselves: the pool they build warns
     * about nothing the command set, so a block without sizes and with {@code minIdleTime} stays quiet there.
     */
    @Test
    void aPoolTheMigrationsCommandSizesWarnsAboutNothingTheCommandSet() throws Exception {
        String block = "hikari:\n  url: jdbc:h2:mem:migrations\n  user: sa\n  minSize: 2\n  maxSize: 4\n"
            + "  minIdleTime: 1 minute\n";
        try (CapturedWarnings warnings = new CapturedWarnings()) {
            HikariDataSourceFactory factory = PoolBlocks.hikari(block);
            assertThat(warnings.messages()).as("the block as written: idle connections above minSize close").isEmpty();
            // what MigrationsBundle does before it builds its pool
            factory.asSingleConnectionPool();
            startAndBorrow(factory, "liquibase");
            assertThat(warnings.messages()).as("warnings of the one-connection pool the command sized").isEmpty();
            assertThat(warnings.hikariConfigurationWarnings()).isEmpty();
        }
    }

    @Test
    void statingMinSizeSilencesTheFixedPoolNotice() throws Exception {
        try (CapturedWarnings warnings = new CapturedWarnings()) {
            HikariDataSourceFactory factory = PoolBlocks.hikari(
                fixture("fixed_pool_with_min_idle_time.yml") + "  minSize: 2\n");
            startAndBorrow(factory, "with-min-size");
            assertThat(warnings.messages()).isEmpty();
            assertThat(warnings.hikariConfigurationWarnings()).isEmpty();
            assertThat(factory.toHikariConfig(new MetricRegistry(), "with-min-size").getIdleTimeout())
                .isEqualTo(60_000);
        }
    }

    private static void startAndBorrow(HikariDataSourceFactory factory, String name) throws Exception {
        ManagedDataSource dataSource = factory.build(new MetricRegistry(), name);
        try {
            dataSource.start();
            try (Connection connection = dataSource.getConnection()) {
                assertThat(connection.isValid(1)).isTrue();
            }
        } finally {
            dataSource.stop();
        }
    }

    private static String fixture(String name) throws Exception {
        try (var in = ConfigurationWarningsTest.class.getResourceAsStream("/yaml/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
