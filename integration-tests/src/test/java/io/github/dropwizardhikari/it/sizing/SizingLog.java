package io.github.dropwizardhikari.it.sizing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.TimeUnit;

/** Captures the lines the pool sizing logs, and waits for a pool's line: it is written in the background. */
final class SizingLog implements AutoCloseable {
    // the operations extension's sizing log, a class of its own package
    private final Logger logger = (Logger) LoggerFactory.getLogger("io.github.dropwizardhikari.operations.PoolSizing");
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    SizingLog() {
        appender.start();
        logger.addAppender(appender);
        // the suite's logback configuration keeps the library quiet; these lines are INFO and WARN
        logger.setLevel(Level.INFO);
    }

    /** @return every line logged so far */
    List<ILoggingEvent> lines() {
        synchronized (appender.list) {
            return List.copyOf(appender.list);
        }
    }

    /** @return whether a line about {@code pool} has been logged so far */
    boolean has(String pool) {
        synchronized (appender.list) {
            return appender.list.stream().anyMatch(event -> event.getFormattedMessage().startsWith("Pool " + pool + ":"));
        }
    }

    ILoggingEvent await(String pool) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            synchronized (appender.list) {
                for (ILoggingEvent event : appender.list) {
                    if (event.getFormattedMessage().startsWith("Pool " + pool + ":")) {
                        return event;
                    }
                }
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
        throw new AssertionError("no sizing line for pool " + pool + " within 20 s; lines: " + appender.list);
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        logger.setLevel(null);
    }
}
