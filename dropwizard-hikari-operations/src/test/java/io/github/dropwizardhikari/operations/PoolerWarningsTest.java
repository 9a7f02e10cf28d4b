package io.github.dropwizardhikari.operations;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.PoolExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code pooler: transaction} makes the block's first pool start warn, once, about each setting a transaction pooler
 * breaks. The blocks point at a PostgreSQL URL whose driver this module's tests lack: each start fails right after
 * the warnings, which come before HikariCP opens the pool.
 */
class PoolerWarningsTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, settings a transaction pooler breaks, each warned about,"
            + " and pools without their driver. WARN and ERROR lines in this log are expected.");
    }

    private final Logger logger = (Logger) LoggerFactory.getLogger(OperationsExtension.class);
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

    private static void startTwice(HikariDataSourceFactory factory, String name) throws Exception {
        for (String pool : List.of(name, name + "-again")) {
            ManagedDataSource dataSource = factory.build(new MetricRegistry(), pool);
            try {
                assertThatThrownBy(dataSource::start).as("no PostgreSQL driver here").isNotNull();
            } finally {
                dataSource.stop();
            }
        }
    }

    private static HikariDataSourceFactory inJava(PoolerMode pooler) {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:postgresql://127.0.0.1:6432/app");
        factory.setInitializationQuery("SET search_path TO app");
        OperationsExtension operations = new OperationsExtension();
        operations.setPooler(pooler);
        factory.setExtensions(List.of(operations));
        return factory;
    }

    @Test
    void eachSettingATransactionPoolerBreaksIsNamedOnceAtTheFirstStart() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("pooler_transaction.yml");
        assertThat(warnings()).as("parsing alone warns about nothing").isEmpty();

        startTwice(factory, "bounced");

        List<String> warnings = warnings();
        assertThat(warnings).hasSize(3);
        assertThat(warnings.get(0)).startsWith("Pool bounced: initializationQuery cannot work as set behind a "
            + "transaction pooler (pooler: transaction): it runs once on each new pooled connection and sets "
            + "session state");
        assertThat(warnings.get(1)).startsWith("Pool bounced: defaultTransactionIsolation cannot work as set");
        assertThat(warnings.get(2)).startsWith("Pool bounced: properties.prepareThreshold cannot work as set behind "
            + "a transaction pooler (pooler: transaction): left at the driver's default (5)");
    }

    @Test
    void theReadmeBlockStartsWithoutAWarning() throws Exception {
        startTwice(FactoryFixtures.parse("pooler_readme.yml"), "readme");

        assertThat(warnings()).isEmpty();
    }

    @Test
    void aFactoryBuiltInJavaWarnsWhenItsPoolStarts() throws Exception {
        startTwice(inJava(PoolerMode.TRANSACTION), "java");

        assertThat(warnings()).hasSize(2).allSatisfy(warning -> assertThat(warning)
            .containsPattern("^Pool java: (initializationQuery|properties.prepareThreshold) cannot work as set"));
    }

    @Test
    void withoutAPoolerTheSameSettingsAreFine() throws Exception {
        startTwice(inJava(PoolerMode.NONE), "direct");

        assertThat(warnings()).isEmpty();
    }

    @Test
    void withoutTheExtensionNothingIsChecked() throws Exception {
        HikariDataSourceFactory factory = inJava(PoolerMode.TRANSACTION);
        factory.setExtensions(List.<PoolExtension>of());

        startTwice(factory, "plain");

        assertThat(warnings()).isEmpty();
    }
}
