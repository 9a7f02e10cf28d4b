package io.github.dropwizardhikari.example.data;

import io.dropwizard.core.cli.Command;
import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** {@code generate-questions --rows 1000000 --owners 100000 --seed 42 questions.csv}. */
public class GenerateQuestionsCommand extends Command {
    public GenerateQuestionsCommand() {
        super("generate-questions", "Writes a deterministic questions.csv (the Stack Overflow data set's format)");
    }

    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("--rows").type(Long.class).setDefault(100_000L).help("questions to write");
        subparser.addArgument("--owners").type(Integer.class).setDefault(10_000).help("distinct owners");
        subparser.addArgument("--seed").type(Long.class).setDefault(42L).help("random seed");
        subparser.addArgument("file").help("the CSV file to write");
    }

    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
        long rows = namespace.getLong("rows");
        if (rows < 0) {
            throw new IllegalArgumentException("--rows must be 0 or more");
        }
        Path file = Path.of(namespace.getString("file"));
        long started = System.nanoTime();
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            new QuestionGenerator(namespace.getLong("seed"), namespace.getInt("owners")).write(rows, out);
        }
        System.out.printf("Wrote %d questions to %s in %d ms%n", rows, file,
            (System.nanoTime() - started) / 1_000_000);
    }
}
