package io.github.dropwizardhikari.operations;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariConfig;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

class PoolSizingTest {
    private static HikariConfig config(String url) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("sized");
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(4);
        return config;
    }

    @Test
    void onlyDatabasesWithAKnownLimitAreAsked() {
        assertThat(ServerLimit.isKnown("jdbc:postgresql://db/app", null)).isTrue();
        assertThat(ServerLimit.isKnown("jdbc:mariadb://db/app", null)).isTrue();
        assertThat(ServerLimit.isKnown("jdbc:mysql://db/app", null)).isTrue();
        assertThat(ServerLimit.isKnown(null, "org.postgresql.ds.PGSimpleDataSource")).isTrue();
        assertThat(ServerLimit.isKnown("jdbc:h2:mem:app", null)).isFalse();
        assertThat(ServerLimit.isKnown("jdbc:otel:postgresql://db/app", null)).isTrue();
        assertThat(ServerLimit.isKnown(null, null)).isFalse();
    }

    @Test
    void anUnknownDatabaseIsNotConnectedTo() {
        AtomicInteger connects = new AtomicInteger();

        Thread thread = new PoolSizing(PoolerMode.NONE).reportInBackground(config("jdbc:h2:mem:sized"), () -> {
            connects.incrementAndGet();
            throw new SQLException("must not be called");
        }, () -> false);

        assertThat(thread).isNull();
        assertThat(connects).hasValue(0);
    }

    @Test
    void aServerThatDoesNotAnswerDelaysNothing() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch asked = new CountDownLatch(1);

        long started = System.nanoTime();
        Thread thread = new PoolSizing(PoolerMode.NONE).reportInBackground(
            config("jdbc:postgresql://10.255.255.1/app"), () -> {
                asked.countDown();
                // a sizing that held the caller up would hold it these 30 s
                release.await(30, TimeUnit.SECONDS);
                throw new SQLException("the server never answered");
            }, () -> false);
        long returnedAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

        assertThat(asked.await(10, TimeUnit.SECONDS)).isTrue();
        // the caller got control back while the sizing thread was still waiting for its connection
        assertThat(thread.isAlive()).isTrue();
        assertThat(thread.isDaemon()).isTrue();
        assertThat(returnedAfter).as("the caller got control back after %d ms (the connection attempt: 30,000 ms)",
            returnedAfter).isLessThan(3_000);
        release.countDown();
        thread.join(10_000);
        assertThat(thread.isAlive()).isFalse();
    }

    @Test
    void aFailingServerBecomesOneInfoLine() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(PoolSizing.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        logger.setLevel(Level.INFO);
        try {
            Thread thread = new PoolSizing(PoolerMode.NONE).reportInBackground(config("jdbc:postgresql://db/app"),
                () -> { throw new SQLException("connection refused"); }, () -> false);
            thread.join(10_000);
        } finally {
            logger.detachAppender(appender);
            logger.setLevel(null);
        }

        assertThat(appender.list).singleElement().satisfies(event -> {
            assertThat(event.getLevel()).isEqualTo(Level.INFO);
            assertThat(event.getFormattedMessage()).isEqualTo("Pool sized: could not read the server's connection "
                + "limit to size maxSize 4 against it: connection refused");
        });
    }

    /**
     * Dropwizard's migrations commands build a pool of one connection ({@code asSingleConnectionPool()}) and hold it
     * for the whole command: the sizing log would wait for it and time out, about a maxSize the command chose.
     */
    @Test
    void aSingleConnectionPoolIsNotSized() {
        AtomicInteger connects = new AtomicInteger();
        HikariConfig single = config("jdbc:postgresql://db/app");
        single.setMaximumPoolSize(1);

        Thread thread = new PoolSizing(PoolerMode.NONE).reportInBackground(single, () -> {
            connects.incrementAndGet();
            throw new SQLException("must not be called");
        }, () -> false);

        assertThat(thread).isNull();
        assertThat(connects).hasValue(0);
    }

    @Test
    void aBorrowThatFailsBecauseThePoolIsStoppingLogsNothing() throws Exception {
        Logger logger = (Logger) LoggerFactory.getLogger(PoolSizing.class);
        ListAppender<ILoggingEvent> appender = new ListAppender<>();
        appender.start();
        logger.addAppender(appender);
        logger.setLevel(Level.DEBUG);
        try {
            Thread thread = new PoolSizing(PoolerMode.NONE).reportInBackground(config("jdbc:postgresql://db/app"),
                () -> { throw new SQLException("pool sized has been closed"); }, () -> true);
            thread.join(10_000);
        } finally {
            logger.detachAppender(appender);
            logger.setLevel(null);
        }

        assertThat(appender.list).noneMatch(event -> event.getLevel().isGreaterOrEqual(Level.INFO));
    }
}
