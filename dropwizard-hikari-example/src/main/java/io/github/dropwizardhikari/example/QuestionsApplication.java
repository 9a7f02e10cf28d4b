package io.github.dropwizardhikari.example;

import com.fasterxml.jackson.databind.SerializationFeature;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.db.PooledDataSourceFactory;
import io.dropwizard.jdbi3.JdbiFactory;
import io.dropwizard.migrations.MigrationsBundle;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.example.data.GenerateQuestionsCommand;
import io.github.dropwizardhikari.example.data.LoadQuestionsCommand;
import io.github.dropwizardhikari.example.data.StartupSeeder;
import io.github.dropwizardhikari.example.errors.DatabaseUnavailableExceptionMapper;
import io.github.dropwizardhikari.example.resources.PauseResource;
import io.github.dropwizardhikari.example.resources.QuestionsResource;
import org.jdbi.v3.core.Jdbi;
import org.jspecify.annotations.Nullable;

/**
 * The questions API (Stack Overflow questions looked up by owner), on HikariCP or on Dropwizard's Tomcat pool: the
 * application the benchmarks measure. An application of your own starts from the README's quick start instead. The
 * pool's extensions (operations, fault handling, fair borrowing; admission for one benchmark) are named in the YAML
 * ({@code example.yml}), not here.
 */
public class QuestionsApplication extends Application<QuestionsConfiguration> {
    @Nullable
    private volatile Jdbi jdbi;

    public static void main(String[] args) throws Exception {
        new QuestionsApplication().run(args);
    }

    @Override
    public String getName() {
        return "questions";
    }

    @Override
    public void initialize(Bootstrap<QuestionsConfiguration> bootstrap) {
        // ${QUESTIONS_DB_URL:-...} in the PostgreSQL configurations; strict = false keeps the defaults usable
        bootstrap.setConfigurationSourceProvider(new SubstitutingSourceProvider(
            bootstrap.getConfigurationSourceProvider(), new EnvironmentVariableSubstitutor(false)));
        // dates as ISO-8601 strings, like the CSV, not as epoch seconds
        bootstrap.getObjectMapper().disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
        bootstrap.addBundle(new HikariBundle<>() {
            @Override
            public @Nullable HikariDataSourceFactory getDataSourceFactory(QuestionsConfiguration configuration) {
                return configuration.getHikari();
            }
        });
        bootstrap.addBundle(new MigrationsBundle<>() {
            @Override
            public PooledDataSourceFactory getDataSourceFactory(QuestionsConfiguration configuration) {
                return configuration.getDataSourceFactory();
            }
        });
        bootstrap.addCommand(new GenerateQuestionsCommand());
        bootstrap.addCommand(new LoadQuestionsCommand());
    }

    @Override
    public void run(QuestionsConfiguration configuration, Environment environment) throws Exception {
        Jdbi built = new JdbiFactory().build(environment, configuration.getDataSourceFactory(),
            QuestionsConfiguration.POOL_NAME);
        new StartupSeeder(configuration.getSeed()).run(built);
        environment.jersey().register(new QuestionsResource(built, configuration.getMaxLimit(),
            configuration.getMaxUsersPerRequest()));
        environment.jersey().register(new PauseResource());
        environment.jersey().register(new DatabaseUnavailableExceptionMapper());
        this.jdbi = built;
    }

    /** @return the application's Jdbi, once {@link #run} has built it (tests use it to hold connections) */
    public Jdbi getJdbi() {
        Jdbi built = jdbi;
        if (built == null) {
            throw new IllegalStateException("the application has not run yet");
        }
        return built;
    }
}
