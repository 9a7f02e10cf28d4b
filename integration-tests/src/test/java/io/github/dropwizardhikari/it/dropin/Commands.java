package io.github.dropwizardhikari.it.dropin;

import io.dropwizard.core.Application;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs an application's CLI commands as {@code java -jar app.jar ...} would. */
public final class Commands {
    private Commands() {
    }

    /** @return what the command printed */
    public static String run(Application<?> app, String... args) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            app.run(args);
        } finally {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
