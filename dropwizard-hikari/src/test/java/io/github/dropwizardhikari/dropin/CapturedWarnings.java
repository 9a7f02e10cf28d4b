package io.github.dropwizardhikari.dropin;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Collects the bundle's WARN messages with Logback's own {@link ListAppender}. While it is open, the console
 * appender of {@code logback-test.xml} is detached: a thousand blocks would otherwise print thousands of
 * expected warnings (a failing block shows its own in the failure message).
 */
final class CapturedWarnings implements AutoCloseable {
    private static final String BUNDLE_PACKAGE = "io.github.dropwizardhikari";

    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private final Appender<ILoggingEvent> console;

    CapturedWarnings() {
        appender.start();
        root.addAppender(appender);
        console = root.getAppender("CONSOLE");
        if (console != null) {
            root.detachAppender(console);
        }
    }

    void clear() {
        appender.list.clear();
    }

    /** The formatted WARN messages the bundle logged since the last {@link #clear()}. */
    List<String> messages() {
        return appender.list.stream()
            .filter(event -> event.getLevel() == Level.WARN && event.getLoggerName().startsWith(BUNDLE_PACKAGE))
            .map(ILoggingEvent::getFormattedMessage)
            .toList();
    }

    /** HikariCP's own WARNs about its configuration (HikariConfig's checks) since the last {@link #clear()}. */
    List<String> hikariConfigurationWarnings() {
        return appender.list.stream()
            .filter(event -> event.getLevel() == Level.WARN
                && event.getLoggerName().equals("com.zaxxer.hikari.HikariConfig"))
            .map(ILoggingEvent::getFormattedMessage)
            .toList();
    }

    /** The messages that start with the full YAML path of a field ({@code hikari.maxWaitForConnection ...}). */
    List<String> startingWith(String path) {
        Pattern start = Pattern.compile("^" + Pattern.quote(path) + "(?![A-Za-z0-9_]).*", Pattern.DOTALL);
        return messages().stream().filter(message -> start.matcher(message).matches()).toList();
    }

    @Override
    public void close() {
        root.detachAppender(appender);
        appender.stop();
        if (console != null) {
            root.addAppender(console);
        }
    }
}
