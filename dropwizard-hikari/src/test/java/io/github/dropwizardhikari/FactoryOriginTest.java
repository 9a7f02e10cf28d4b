package io.github.dropwizardhikari;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.configuration.ConfigurationException;
import io.dropwizard.configuration.ConfigurationFactory;
import io.dropwizard.configuration.DefaultConfigurationFactoryFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.jersey.validation.Validators;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Each parsed block knows where it was found, so its messages name the full path. */
class FactoryOriginTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, Tomcat-only settings, each warned about."
            + " WARN and ERROR lines in this log are expected.");
    }

    static class AppConfig {
        @Valid
        @NotNull
        @JsonProperty
        HikariDataSourceFactory hikari;

        @Valid
        @NotNull
        @JsonProperty
        Map<String, HikariDataSourceFactory> databases = new LinkedHashMap<>();
    }

    private static final ConfigurationFactory<AppConfig> APP = new DefaultConfigurationFactoryFactory<AppConfig>()
        .create(AppConfig.class, Validators.newValidator(), Jackson.newObjectMapper(), "dw");

    private static AppConfig parse(String yaml) throws Exception {
        return APP.build(path -> new ByteArrayInputStream(yaml.getBytes(StandardCharsets.UTF_8)), "app.yml");
    }

    @Test
    void recordsThePathAndTheKeysOfEachBlock() throws Exception {
        AppConfig config = parse("hikari:\n  url: jdbc:h2:mem:a\n  maximumPoolSize: 4\n"
            + "databases:\n  primary:\n    jdbcUrl: jdbc:h2:mem:b\n    minSize: 1\n");

        assertThat(config.hikari.origin()).isEqualTo(new Origin("hikari",
            java.util.Set.of("url", "maximumPoolSize")));
        assertThat(config.databases.get("primary").origin().path()).isEqualTo("databases.primary");
        assertThat(config.databases.get("primary").origin().keys()).containsExactlyInAnyOrder("jdbcUrl",
            "minSize");
        assertThat(config.hikari.getMaxSize()).isEqualTo(4);
        assertThat(new HikariDataSourceFactory().origin()).isEqualTo(Origin.JAVA);
    }

    @Test
    void recordsThePathWithAStreamingParserToo() throws Exception {
        AppConfig config = Jackson.newObjectMapper().readValue(
            "{\"hikari\": {\"url\": \"jdbc:h2:mem:c\"}, \"databases\": {\"replica\": {\"url\": \"jdbc:h2:mem:d\"}}}",
            AppConfig.class);

        assertThat(config.hikari.origin().path()).isEqualTo("hikari");
        assertThat(config.databases.get("replica").origin().path()).isEqualTo("databases.replica");
    }

    @Test
    void aMisspelledKeyGetsDropwizardsDidYouMean() {
        assertThatThrownBy(() -> parse("hikari:\n  url: jdbc:h2:mem:e\n  maxPoolSizee: 4\n"))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining("Unrecognized field at: hikari.maxPoolSizee")
            .hasMessageContaining("Did you mean?")
            .hasMessageContaining("maxSize");
    }

    @Test
    void tomcatOnlyWarningsNameTheFullPath() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(HikariDataSourceFactory.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            AppConfig config = parse("hikari:\n  url: jdbc:h2:mem:f\n  rollbackOnReturn: true\n"
                + "databases:\n  primary:\n    url: jdbc:h2:mem:g\n    useFairQueue: false\n");
            config.hikari.build(new MetricRegistry(), "origin").stop();
        } finally {
            logger.detachAppender(appender);
        }

        assertThat(appender.list).extracting(ILoggingEvent::getFormattedMessage)
            .anyMatch(message -> message.startsWith("hikari.rollbackOnReturn: "))
            .anyMatch(message -> message.startsWith("databases.primary.useFairQueue: "));
    }
}
