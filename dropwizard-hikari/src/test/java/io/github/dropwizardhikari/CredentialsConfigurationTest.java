package io.github.dropwizardhikari;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code credentials:} block as Dropwizard parses and validates it. */
class CredentialsConfigurationTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, connections that would outlive their credentials."
            + " WARN and ERROR lines in this log are expected.");
    }

    private static List<String> warningsWhileParsing(String fixture) throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(HikariDataSourceFactory.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        try {
            FactoryFixtures.parse(fixture);
        } finally {
            logger.detachAppender(appender);
        }
        return appender.list.stream().map(ILoggingEvent::getFormattedMessage)
            .filter(message -> message.contains("credentials")).toList();
    }

    @Test
    void aLifetimeShorterThanMaxConnectionAgeIsWarnedAboutWhenTheConfigurationIsValidated() throws Exception {
        assertThat(warningsWhileParsing("credentials_short_lifetime.yml")).containsExactly(
            "hikari.maxConnectionAge (30 minutes) is longer than hikari.credentials.lifetime (15 minutes): connections "
                + "may outlive the credentials they were opened with, and fail when the database revokes them. Set "
                + "hikari.maxConnectionAge below the lifetime (leave time for the file to be renewed).");
    }

    @Test
    void aLifetimeLongerThanMaxConnectionAgeIsQuiet() throws Exception {
        assertThat(warningsWhileParsing("credentials.yml")).isEmpty();
    }
}
