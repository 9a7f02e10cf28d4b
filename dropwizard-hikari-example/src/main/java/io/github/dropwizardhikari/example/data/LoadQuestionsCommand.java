package io.github.dropwizardhikari.example.data;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.db.ManagedDataSource;
import io.github.dropwizardhikari.example.QuestionsConfiguration;
import io.github.dropwizardhikari.example.db.SchemaMigration;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;

/**
 * {@code load-questions config.yml questions.csv}: migrates the schema if needed and replaces the table's
 * contents with the CSV, through whichever pool the configuration names.
 */
public class LoadQuestionsCommand extends ConfiguredCommand<QuestionsConfiguration> {
    private static final long PROGRESS_EVERY = 100_000;

    public LoadQuestionsCommand() {
        super("load-questions", "Loads a questions.csv (generated or the real data set) into the database");
    }

    @Override
    public void configure(Subparser subparser) {
        super.configure(subparser);
        subparser.addArgument("csv").help("the CSV file to load");
    }

    @Override
    protected void run(Bootstrap<QuestionsConfiguration> bootstrap, Namespace namespace,
                       QuestionsConfiguration configuration) throws Exception {
        Path csv = Path.of(namespace.getString("csv"));
        if (!Files.isReadable(csv)) {
            throw new IllegalArgumentException("cannot read " + csv);
        }
        ManagedDataSource dataSource = configuration.getDataSourceFactory().build(new MetricRegistry(), "load");
        try (Connection connection = dataSource.getConnection()) {
            SchemaMigration.migrate(connection);
            QuestionCsvLoader.Result result = new QuestionCsvLoader(
                rows -> System.out.printf("... %d rows%n", rows), PROGRESS_EVERY).load(connection, csv);
            System.out.printf("Loaded %d questions from %s with %s in %.1f s%n", result.rows(), csv,
                result.method(), result.elapsed().toMillis() / 1000.0);
        } finally {
            dataSource.stop();
        }
    }
}
