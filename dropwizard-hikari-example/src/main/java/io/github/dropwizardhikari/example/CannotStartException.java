package io.github.dropwizardhikari.example;

/**
 * Why the application cannot start, already logged as one ERROR line that says so: the server command ends the
 * process with status 1 without printing it again as a stack trace.
 */
final class CannotStartException extends Exception {
    private static final long serialVersionUID = 1L;

    CannotStartException(String message) {
        super(message, null, false, false);
    }
}
