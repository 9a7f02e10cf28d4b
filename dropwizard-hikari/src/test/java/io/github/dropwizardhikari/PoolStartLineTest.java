package io.github.dropwizardhikari;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.util.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each pool says at INFO, once, when it starts: HikariCP's version, its sizes, its connection timeout and the
 * extensions it runs.
 */
class PoolStartLineTest {
    private final Logger logger = (Logger) LoggerFactory.getLogger(ManagedHikariDataSource.class);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private final MetricRegistry metrics = new MetricRegistry();
    private Level level;

    @BeforeEach
    void capture() {
        level = logger.getLevel();
        logger.setLevel(Level.INFO);
        appender.start();
        logger.addAppender(appender);
    }

    @AfterEach
    void release() {
        logger.detachAppender(appender);
        logger.setLevel(level);
    }

    private List<String> startLines() {
        return appender.list.stream().filter(event -> event.getLevel() == Level.INFO)
            .map(ILoggingEvent::getFormattedMessage).filter(message -> message.contains(" started: ")).toList();
    }

    private static HikariDataSourceFactory factory(String name) {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:" + name);
        factory.setMinSize(1);
        factory.setMaxSize(3);
        factory.setMaxWaitForConnection(Duration.seconds(2));
        return factory;
    }

    @Test
    void aPoolWithoutExtensionsSaysSoWithHikariCpsVersionFromItsJar() throws Exception {
        ManagedHikariDataSource pool = (ManagedHikariDataSource) factory("start-line").build(metrics, "start-line");
        try {
            pool.start();
            pool.getConnection().close();
        } finally {
            pool.stop();
        }

        // the version as the jar on the class path is named (HikariCP-7.1.0.jar), read independently of the line
        String jar = Path.of(HikariDataSource.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .getFileName().toString();
        String version = ManagedHikariDataSource.hikariVersion();
        assertThat(version).matches("\\d+\\.\\d+\\.\\d+.*");
        assertThat(jar).isEqualTo("HikariCP-" + version + ".jar");
        assertThat(startLines()).containsExactly("Pool start-line started: HikariCP " + version
            + ", minSize 1, maxSize 3, maxWaitForConnection 2000 ms, networkTimeout 0 (none: nothing in the core "
            + "bounds a call to a silent database), extensions: none");
    }

    @Test
    void aPoolNamesTheExtensionsItRunsAsTheBlockNamesThem() throws Exception {
        HikariDataSourceFactory factory = factory("start-line-extensions");
        factory.setExtensions(List.of(new BorrowCountingExtension()));
        ManagedHikariDataSource pool = (ManagedHikariDataSource) factory.build(metrics, "start-line-extensions");
        try {
            pool.start();
        } finally {
            pool.stop();
        }

        assertThat(startLines()).singleElement().asString()
            .startsWith("Pool start-line-extensions started: HikariCP ")
            .endsWith(", extensions: borrow-counting");
    }
}
