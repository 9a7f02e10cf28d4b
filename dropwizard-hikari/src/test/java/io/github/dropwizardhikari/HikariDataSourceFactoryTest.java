package io.github.dropwizardhikari;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.dropwizard.db.DataSourceFactory.TransactionIsolation;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

class HikariDataSourceFactoryTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, Tomcat-only and adjusted settings, each warned about."
            + " WARN and ERROR lines in this log are expected.");
    }

    private final MetricRegistry metrics = new MetricRegistry();

    @Test
    void fullConfigurationMapsEveryFieldOntoHikariConfig() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("full.yml");
        HikariConfig config = factory.toHikariConfig(metrics, "full");

        assertThat(config.getPoolName()).isEqualTo("full");
        assertThat(config.getJdbcUrl()).isEqualTo("jdbc:h2:mem:full");
        assertThat(config.getDataSourceClassName()).isNull();
        assertThat(config.getDriverClassName()).isEqualTo("org.h2.Driver");
        assertThat(config.getUsername()).isEqualTo("sa");
        assertThat(config.getPassword()).isEqualTo("s3cret-full");
        assertThat(config.getDataSourceProperties()).containsExactly(entry("charSet", "UTF-8"));
        assertThat(config.getMinimumIdle()).isEqualTo(2);
        assertThat(config.getMaximumPoolSize()).isEqualTo(12);
        assertThat(config.getConnectionTimeout()).isEqualTo(3_000);
        assertThat(config.getIdleTimeout()).isEqualTo(20_000);
        assertThat(config.getMaxLifetime()).isEqualTo(600_000);
        assertThat(config.getKeepaliveTime()).isEqualTo(60_000);
        assertThat(config.getLeakDetectionThreshold()).isEqualTo(5_000);
        assertThat(config.getConnectionTestQuery()).isEqualTo("SELECT 1");
        assertThat(config.getValidationTimeout()).isEqualTo(2_000);
        assertThat(config.getConnectionInitSql()).isEqualTo("SET SCHEMA PUBLIC");
        assertThat(config.isAutoCommit()).isFalse();
        assertThat(config.isReadOnly()).isTrue();
        assertThat(config.getCatalog()).isEqualTo("FULL");
        assertThat(config.getTransactionIsolation()).isEqualTo("TRANSACTION_READ_COMMITTED");
        assertThat(config.getSchema()).isEqualTo("PUBLIC");
        assertThat(config.getInitializationFailTimeout()).isZero();
        assertThat(config.isIsolateInternalQueries()).isTrue();
        assertThat(config.isAllowPoolSuspension()).isTrue();
        assertThat(config.isRegisterMbeans()).isTrue();
        assertThat(config.getExceptionOverrideClassName()).isEqualTo(NeverEvict.class.getName());
        assertThat(config.getExceptionOverride()).isInstanceOf(NeverEvict.class);
        assertThat(config.getCredentialsProvider()).isInstanceOf(StaticCredentials.class);
        assertThat(config.getHealthCheckProperties())
            .containsOnly(entry("connectivityCheckTimeoutMs", "1500"), entry("expected99thPercentileMs", "10"));
        assertThat(config.getMetricRegistry()).isSameAs(metrics);
    }

    @Test
    void fullConfigurationKeepsDropwizardInterfaceValues() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("full.yml");

        assertThat(factory.isAutoCommentsEnabled()).isFalse();
        assertThat(factory.getValidationQuery()).contains("SELECT 1");
        // as in Dropwizard: the block's value, which the pool runs and Dropwizard's own checks take as their bound
        assertThat(factory.getValidationQueryTimeout()).contains(Duration.seconds(2));
        assertThat(factory.toHikariConfig(metrics, "full").getValidationTimeout()).isEqualTo(2_000);
        assertThat(factory.getDriverClass()).isEqualTo("org.h2.Driver");
        assertThat(factory.getUrl()).isEqualTo("jdbc:h2:mem:full");
        assertThat(factory.getProperties()).containsExactly(entry("charSet", "UTF-8"));
        assertThat(factory.getDefaultTransactionIsolation()).isEqualTo(TransactionIsolation.READ_COMMITTED);
        assertThat(factory.getNetworkTimeout()).isEqualTo(Duration.seconds(45));
        assertThat(factory.getExtensions()).singleElement().isInstanceOfSatisfying(BorrowCountingExtension.class,
            extension -> assertThat(extension.getMetric()).isEqualTo("BorrowsSoFar"));
    }

    @Test
    void minimalConfigurationHasEveryDefault() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("minimal.yml");
        HikariConfig config = factory.toHikariConfig(metrics, "minimal");

        assertThat(config.getJdbcUrl()).isEqualTo("jdbc:h2:mem:minimal");
        assertThat(config.getDataSourceClassName()).isNull();
        assertThat(config.getDriverClassName()).isNull();
        assertThat(config.getUsername()).isNull();
        assertThat(config.getPassword()).isNull();
        assertThat(config.getDataSourceProperties()).isEmpty();
        assertThat(config.getMinimumIdle()).isEqualTo(10);
        assertThat(config.getMaximumPoolSize()).isEqualTo(10);
        assertThat(config.getConnectionTimeout()).isEqualTo(30_000);
        assertThat(config.getIdleTimeout()).isEqualTo(600_000);
        assertThat(config.getMaxLifetime()).isEqualTo(1_800_000);
        assertThat(config.getKeepaliveTime()).isEqualTo(120_000);
        assertThat(config.getLeakDetectionThreshold()).isZero();
        assertThat(config.getConnectionTestQuery()).isNull();
        assertThat(config.getValidationTimeout()).isEqualTo(5_000);
        assertThat(config.getConnectionInitSql()).isNull();
        assertThat(config.isAutoCommit()).isTrue();
        assertThat(config.isReadOnly()).isFalse();
        assertThat(config.getCatalog()).isNull();
        assertThat(config.getTransactionIsolation()).isNull();
        assertThat(config.getSchema()).isNull();
        assertThat(config.getInitializationFailTimeout()).isEqualTo(1);
        assertThat(config.isIsolateInternalQueries()).isFalse();
        assertThat(config.isAllowPoolSuspension()).isFalse();
        assertThat(config.isRegisterMbeans()).isFalse();
        assertThat(config.getExceptionOverrideClassName()).isNull();
        assertThat(config.getCredentialsProvider()).isNull();
        assertThat(config.getHealthCheckProperties()).isEmpty();

        assertThat(factory.isAutoCommentsEnabled()).isTrue();
        assertThat(factory.getValidationQuery()).isEmpty();
        // as in Dropwizard: none given, none returned; the pool runs HikariCP's 5 s (asserted above)
        assertThat(factory.getValidationQueryTimeout()).isEmpty();
        assertThat(factory.getMinSize()).isEqualTo(10);
        // none, as in Dropwizard and HikariCP: a socket timeout would also cut every query silent that long
        assertThat(factory.getNetworkTimeout()).isEqualTo(Duration.seconds(0));
        assertThat(factory.getDefaultTransactionIsolation()).isEqualTo(TransactionIsolation.DEFAULT);
        assertThat(factory.getTomcatOnlySettings()).isEmpty();
        assertThat(factory.getExtensions()).isEmpty();

    }

    @Test
    void minimalConfigurationIsAcceptedByHikariUnchanged() throws Exception {
        HikariConfig config = FactoryFixtures.parse("minimal.yml").toHikariConfig(metrics, "unchanged");
        HikariConfig validated = new HikariConfig();
        config.copyStateTo(validated);
        validated.validate();

        assertThat(validated.getConnectionTimeout()).isEqualTo(config.getConnectionTimeout());
        assertThat(validated.getIdleTimeout()).isEqualTo(config.getIdleTimeout());
        assertThat(validated.getKeepaliveTime()).isEqualTo(config.getKeepaliveTime());
        assertThat(validated.getMinimumIdle()).isEqualTo(config.getMinimumIdle());
    }

    @Test
    void validationTimeoutDefaultsToTheConnectionTimeoutWhenThatIsShorter() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("minimal.yml");
        factory.setMaxWaitForConnection(Duration.seconds(2));

        // none given, none returned, as in Dropwizard; the pool runs the connection timeout
        assertThat(factory.getValidationQueryTimeout()).isEmpty();
        assertThat(factory.toHikariConfig(metrics, "short").getValidationTimeout()).isEqualTo(2_000);
    }

    @Test
    void hikariNamesAreAliases() throws Exception {
        HikariConfig config = FactoryFixtures.parse("hikari_names.yml").toHikariConfig(metrics, "aliases");

        assertThat(config.getJdbcUrl()).isEqualTo("jdbc:h2:mem:aliases");
        assertThat(config.getDriverClassName()).isEqualTo("org.h2.Driver");
        assertThat(config.getUsername()).isEqualTo("sa");
        assertThat(config.getPassword()).isEqualTo("s3cret-alias");
        assertThat(config.getDataSourceProperties()).containsExactly(entry("charSet", "UTF-8"));
        assertThat(config.getMinimumIdle()).isEqualTo(3);
        assertThat(config.getMaximumPoolSize()).isEqualTo(7);
        assertThat(config.getConnectionTimeout()).isEqualTo(4_000);
        assertThat(config.getIdleTimeout()).isEqualTo(30_000);
        assertThat(config.getMaxLifetime()).isEqualTo(900_000);
        assertThat(config.getConnectionTestQuery()).isEqualTo("SELECT 2");
        assertThat(config.getValidationTimeout()).isEqualTo(1_000);
        assertThat(config.getConnectionInitSql()).isEqualTo("SET SCHEMA PUBLIC");
        assertThat(config.isAutoCommit()).isFalse();
        assertThat(config.isReadOnly()).isTrue();
        assertThat(config.getCatalog()).isEqualTo("ALIASES");
        assertThat(config.getTransactionIsolation()).isEqualTo("TRANSACTION_SERIALIZABLE");
    }

    @Test
    void tomcatOnlySettingsAreAcceptedAndWarnedAboutOnceEachAtValidation() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(HikariDataSourceFactory.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        HikariDataSourceFactory factory;
        try {
            factory = FactoryFixtures.parse("tomcat_settings.yml");
            ManagedDataSource first = factory.build(metrics, "tomcat-first");
            ManagedDataSource second = factory.build(metrics, "tomcat-second");
            first.stop();
            second.stop();
        } finally {
            logger.detachAppender(appender);
        }

        assertThat(factory.getTomcatOnlySettings()).containsExactlyInAnyOrder("rollbackOnReturn", "useFairQueue",
            "initialSize", "checkConnectionOnBorrow", "jdbcInterceptors");
        assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage).containsExactlyInAnyOrder(
            "hikari.rollbackOnReturn: ignoring this Tomcat pool setting: HikariCP has no such setting; "
                + "HikariCP always rolls back uncommitted work when a connection is returned.",
            "hikari.useFairQueue: ignoring this Tomcat pool setting: HikariCP has no such setting; "
                + "HikariCP hands connections to waiting threads directly; the fair-borrowing extension "
                + "makes borrowers wait in arrival order.",
            "hikari.initialSize: ignoring this Tomcat pool setting: HikariCP has no such setting; "
                + "HikariCP fills the pool up to minSize in the background.",
            "hikari.checkConnectionOnBorrow: ignoring this Tomcat pool setting: HikariCP has no such setting; "
                + "HikariCP validates a connection on borrow when it has been idle for more than 500 ms.",
            "hikari.jdbcInterceptors: ignoring this Tomcat pool setting: HikariCP has no such setting; "
                + "HikariCP's proxies already reset connection state and close open statements on return.");
        assertThat(appender.list).allMatch(event -> event.getLevel() == ch.qos.logback.classic.Level.WARN);
    }

    @Test
    @SuppressWarnings("deprecation")
    void tomcatOnlySettersWarnLikeTheirKeys() {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:tomcat-java");
        factory.setUseFairQueue(false);
        factory.setValidationInterval(Duration.seconds(1));
        Logger logger = (Logger) LoggerFactory.getLogger(HikariDataSourceFactory.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            factory.toHikariConfig(metrics, "tomcat-java");
            factory.toHikariConfig(metrics, "tomcat-java-again");
        } finally {
            logger.detachAppender(appender);
        }

        assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage).containsExactlyInAnyOrder(
            "useFairQueue: ignoring this Tomcat pool setting: HikariCP has no such setting; "
                + "HikariCP hands connections to waiting threads directly; the fair-borrowing extension "
                + "makes borrowers wait in arrival order.",
            "validationInterval: ignoring this Tomcat pool setting: HikariCP has no such setting; "
                + "HikariCP skips validation for connections used within the last 500 ms.");
    }

    @Test
    void asSingleConnectionPoolMakesAPoolOfExactlyOne() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("full.yml");
        factory.asSingleConnectionPool();
        HikariConfig config = factory.toHikariConfig(metrics, "single");

        assertThat(config.getMinimumIdle()).isEqualTo(1);
        assertThat(config.getMaximumPoolSize()).isEqualTo(1);
    }

    @Test
    void asSingleConnectionPoolOverridesSizesGivenAndAddsNoTomcatOnlySetting() throws Exception {
        HikariDataSourceFactory plain = FactoryFixtures.parse("minimal.yml");
        plain.asSingleConnectionPool();

        assertThat(plain.getInitialSize()).isEqualTo(1);
        assertThat(plain.getTomcatOnlySettings()).isEmpty();
        assertThat(plain.toHikariConfig(metrics, "single-plain").getInitializationFailTimeout()).isEqualTo(1);

        HikariDataSourceFactory sized = FactoryFixtures.parse("minimal.yml");
        sized.setMinSize(5);
        sized.setInitialSize(5);
        sized.asSingleConnectionPool();
        HikariConfig config = sized.toHikariConfig(metrics, "single-sized");

        assertThat(config.getMinimumIdle()).isEqualTo(1);
        assertThat(config.getMaximumPoolSize()).isEqualTo(1);
        assertThat(sized.getInitialSize()).isEqualTo(1);
        assertThat(sized.getTomcatOnlySettings()).containsExactly("initialSize");
    }

    @Test
    void transactionIsolationAcceptsDropwizardAndHikariSpellings() {
        assertThat(IsolationDeserializer.parse("READ_COMMITTED")).isEqualTo(TransactionIsolation.READ_COMMITTED);
        assertThat(IsolationDeserializer.parse("read-committed")).isEqualTo(TransactionIsolation.READ_COMMITTED);
        assertThat(IsolationDeserializer.parse("TRANSACTION_REPEATABLE_READ")).isEqualTo(TransactionIsolation.REPEATABLE_READ);
        assertThat(IsolationDeserializer.parse("none")).isEqualTo(TransactionIsolation.NONE);
        assertThat(IsolationDeserializer.hikariName(IsolationDeserializer.parse("DEFAULT"))).isNull();
        assertThat(IsolationDeserializer.hikariName(TransactionIsolation.SERIALIZABLE)).isEqualTo("TRANSACTION_SERIALIZABLE");
    }

    @Test
    void toStringHidesThePassword() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("full.yml");
        factory.setUrl("jdbc:postgresql://db/app?user=app&password=url-secret&ssl=true");
        factory.setProperties(Map.of("password", "property-secret", "sslmode", "require"));

        String text = factory.toString();

        assertThat(text).doesNotContain("s3cret-full", "url-secret", "property-secret")
            .contains("password=<masked>", "ssl=true", "sslmode=require", "user=sa");
    }

    @Test
    void toStringNamesEverySetting() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("full.yml");
        com.fasterxml.jackson.databind.JsonNode json = io.dropwizard.jackson.Jackson.newObjectMapper()
            .valueToTree(factory);
        List<String> settings = new ArrayList<>();
        json.fieldNames().forEachRemaining(settings::add);
        settings.add("password");

        String text = factory.toString();

        assertThat(settings).hasSizeGreaterThanOrEqualTo(30);
        assertThat(settings).allSatisfy(setting ->
            assertThat(text).as(setting).containsPattern("[{ ]" + Pattern.quote(setting) + "="));
    }

    /** Each value as JSON shows it (secrets masked in both), nested blocks' values included. */
    @Test
    void toStringShowsTheValueOfEverySetting() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("full.yml");
        com.fasterxml.jackson.databind.JsonNode json = io.dropwizard.jackson.Jackson.newObjectMapper()
            .valueToTree(factory);

        String text = factory.toString();

        List<String> expected = new ArrayList<>();
        json.fields().forEachRemaining(setting -> expected.addAll(shown(setting.getKey(), setting.getValue())));
        assertThat(expected).hasSizeGreaterThanOrEqualTo(30)
            .contains("maxWaitForConnection=3 seconds",
                "extensions=[{\"type\":\"borrow-counting\",\"metric\":\"BorrowsSoFar\"}]");
        assertThat(expected).allSatisfy(setting ->
            assertThat(text).as(setting).containsPattern("[{ ]" + Pattern.quote(setting) + "[,}]"));
    }

    /** @return {@code name=value} as {@code toString()} writes it; a block's or map's entries one by one */
    private static List<String> shown(String name, com.fasterxml.jackson.databind.JsonNode value) {
        if (value.isObject()) {
            List<String> entries = new ArrayList<>();
            value.fields().forEachRemaining(entry -> entries.addAll(shown(entry.getKey(), entry.getValue())));
            return entries;
        }
        if (value.isArray() && value.size() > 0 && value.get(0).isObject()) {
            // a list of blocks (extensions) shows each as its JSON
            return List.of(name + "=" + value);
        }
        if (value.isArray()) {
            List<String> elements = new ArrayList<>();
            value.elements().forEachRemaining(element -> elements.add(element.asText()));
            return List.of(name + "=" + elements.toString());
        }
        return List.of(name + "=" + (value.isNull() ? "null" : value.asText()));
    }

    @Test
    void toStringShowsTheValuesInUseForSettingsNotGiven() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("minimal.yml");
        assertThat(factory.toString())
            .contains("minSize=10,", "maxSize=10,", "initializationFailTimeout=1 millisecond,");

        factory.setMaxSize(4);
        assertThat(factory.toString()).contains("minSize=4,", "maxSize=4,");
    }

    @Test
    void jsonCarriesNoSecretWhileJavaGettersKeepTheRealValues() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("full.yml");
        factory.setUrl("jdbc:postgresql://app:userinfo-secret@db/app?password=url-secret&ssl=true");
        factory.setProperties(Map.of("sslpassword", "property-secret", "apiToken", "token-secret",
            "options", "jdbc:other://db?pwd=nested-secret", "sslmode", "require"));

        String json = io.dropwizard.jackson.Jackson.newObjectMapper().writeValueAsString(factory);

        assertThat(json).doesNotContain("s3cret-full", "userinfo-secret", "url-secret", "property-secret",
            "token-secret", "nested-secret")
            .contains("\"user\":\"sa\"", "ssl=true", "\"sslmode\":\"require\"", "<masked>")
            .doesNotContain("\"password\"");
        assertThat(factory.getPassword()).isEqualTo("s3cret-full");
        assertThat(factory.getUrl()).contains("url-secret");
        assertThat(factory.getProperties()).containsEntry("sslpassword", "property-secret");
        assertThat(factory.toString()).doesNotContain("userinfo-secret", "url-secret", "property-secret",
            "token-secret", "nested-secret");
    }
}
