package io.github.dropwizardhikari;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import io.github.dropwizardhikari.scaleout.PoolerMode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code pooler: transaction} makes the pool's build warn, once, about each setting a transaction pooler breaks. */
class PoolerWarningsTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, settings a transaction pooler breaks, each warned about."
            + " WARN and ERROR lines in this log are expected.");
    }

    private final Logger logger = (Logger) LoggerFactory.getLogger(HikariDataSourceFactory.class);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    @BeforeEach
    void capture() {
        appender.start();
        logger.addAppender(appender);
    }

    @AfterEach
    void release() {
        logger.detachAppender(appender);
    }

    private List<String> warnings() {
        return appender.list.stream().filter(event -> event.getLevel() == Level.WARN)
            .map(ILoggingEvent::getFormattedMessage).toList();
    }

    private static void buildTwice(HikariDataSourceFactory factory, String name) throws Exception {
        factory.build(new MetricRegistry(), name).stop();
        factory.build(new MetricRegistry(), name + "-again").stop();
    }

    private static HikariDataSourceFactory inJava(PoolerMode pooler) {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:postgresql://127.0.0.1:6432/app");
        factory.setInitializationQuery("SET search_path TO app");
        factory.setPooler(pooler);
        return factory;
    }

    @Test
    void eachSettingATransactionPoolerBreaksIsNamedOnceAtValidation() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("pooler_transaction.yml");
        List<String> atValidation = warnings();
        buildTwice(factory, "bounced");

        assertThat(warnings()).isEqualTo(atValidation).hasSize(3);
        assertThat(atValidation.get(0)).startsWith("hikari.initializationQuery cannot work as set behind a "
            + "transaction pooler (hikari.pooler is transaction): it runs once on each new pooled connection and "
            + "sets session state");
        assertThat(atValidation.get(1)).startsWith("hikari.defaultTransactionIsolation cannot work as set");
        assertThat(atValidation.get(2)).startsWith("hikari.properties.prepareThreshold cannot work as set behind a "
            + "transaction pooler (hikari.pooler is transaction): left at the driver's default (5)");
    }

    @Test
    void theReadmeBlockBuildsWithoutAWarning() throws Exception {
        buildTwice(FactoryFixtures.parse("pooler_readme.yml"), "readme");

        assertThat(warnings()).isEmpty();
    }

    @Test
    void aFactoryBuiltInJavaWarnsWhenItIsBuilt() throws Exception {
        buildTwice(inJava(PoolerMode.TRANSACTION), "java");

        assertThat(warnings()).hasSize(2).allSatisfy(warning -> assertThat(warning)
            .containsPattern("^(initializationQuery|properties.prepareThreshold) cannot work as set"));
    }

    @Test
    void withoutAPoolerTheSameSettingsAreFine() throws Exception {
        buildTwice(inJava(PoolerMode.NONE), "direct");

        assertThat(warnings()).isEmpty();
    }
}
