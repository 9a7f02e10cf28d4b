package io.github.dropwizardhikari.example;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.dropwizard.configuration.EnvironmentVariableSubstitutor;
import io.dropwizard.configuration.SubstitutingSourceProvider;
import io.dropwizard.core.Application;
import io.dropwizard.core.cli.CheckCommand;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ServerCommand;
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
import io.github.dropwizardhikari.example.errors.JsonBodyExceptionMapper;
import io.github.dropwizardhikari.example.errors.ViolationExceptionMapper;
import io.github.dropwizardhikari.example.resources.PauseResource;
import io.github.dropwizardhikari.example.resources.QuestionsResource;
import io.github.dropwizardhikari.example.resources.RepeatedQueryParamFilter;
import org.jdbi.v3.core.Jdbi;
import net.sourceforge.argparse4j.inf.Namespace;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The questions API (Stack Overflow questions looked up by owner), on HikariCP or on Dropwizard's Tomcat pool: the
 * application the benchmarks measure. An application of your own starts from the README's quick start instead. The
 * pool's extensions (operations, fault handling, fair borrowing; admission for one benchmark) are named in the YAML
 * ({@code example.yml}), not here.
 */
public class QuestionsApplication extends Application<QuestionsConfiguration> {
    private static final Logger LOGGER = LoggerFactory.getLogger(QuestionsApplication.class);

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
        // a request body with a field the API does not take is refused (422 naming it), not stored without it
        bootstrap.getObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
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
        seed(configuration.getSeed(), built);
        readBodiesAsSent(environment.getObjectMapper());
        environment.jersey().register(new QuestionsResource(built, configuration.getMaxLimit(),
            configuration.getMaxUsersPerRequest()));
        environment.jersey().register(new PauseResource());
        environment.jersey().register(new DatabaseUnavailableExceptionMapper());
        // every error in one format, Dropwizard's {"code": ..., "message": ...}
        environment.jersey().register(new ViolationExceptionMapper());
        environment.jersey().register(new JsonBodyExceptionMapper());
        environment.jersey().register(new RepeatedQueryParamFilter());
        this.jdbi = built;
    }

    @Override
    protected void addDefaultCommands(Bootstrap<QuestionsConfiguration> bootstrap) {
        // Dropwizard's own two commands; a start refused with a reason already logged ends without a stack trace
        bootstrap.addCommand(new ServerCommand<>(this) {
            @Override
            public void onError(Cli cli, Namespace namespace, Throwable e) {
                if (!(e instanceof CannotStartException)) {
                    super.onError(cli, namespace, e);
                }
            }
        });
        bootstrap.addCommand(new CheckCommand<>(this));
    }

    /**
     * Request bodies are read as sent or refused (422 naming the field): no text or fraction read as a whole number,
     * no field given twice. Set in {@code run()}, not {@code initialize()}, because the same mapper reads the
     * configuration first, where {@code -Ddw.hikari.maxSize=16} arrives as text and must still set a number.
     */
    private static void readBodiesAsSent(ObjectMapper mapper) {
        mapper.coercionConfigFor(LogicalType.Integer).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
        mapper.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
        mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    }

    /**
     * Seeds the database when the configuration asks for it; a database that does not answer ends the start with
     * one ERROR line naming the setting that needs it.
     */
    private static void seed(SeedConfiguration seed, Jdbi jdbi) throws Exception {
        try {
            new StartupSeeder(seed).run(jdbi);
        } catch (Exception e) {
            if (!DatabaseUnavailableExceptionMapper.isConnectionFailure(e)) {
                throw e;
            }
            String setting = seed.isMigrateOnStart() ? "seed.migrateOnStart: true (migrate the schema at start)"
                : "seed.rows: " + seed.getRows() + " (fill an empty table at start)";
            String message = "Cannot start: " + setting + " needs the database, which does not answer ("
                + DatabaseUnavailableExceptionMapper.rootMessage(e) + "). Start the database first, or set "
                + "seed.migrateOnStart: false and seed.rows: 0 to start without it (then run db migrate and "
                + "load-questions once it answers)";
            LOGGER.error(message);
            throw new CannotStartException(message);
        }
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
