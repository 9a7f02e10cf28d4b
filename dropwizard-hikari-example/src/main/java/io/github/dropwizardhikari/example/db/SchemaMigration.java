package io.github.dropwizardhikari.example.db;

import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.Scope;
import liquibase.UpdateSummaryOutputEnum;
import liquibase.database.jvm.JdbcConnection;
import liquibase.exception.LiquibaseException;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/**
 * Applies {@code migrations.xml}, the same change log that {@code db migrate} applies, so the embedded example
 * can migrate itself on start.
 */
public final class SchemaMigration {
    public static final String CHANGE_LOG = "migrations.xml";

    private SchemaMigration() {
    }

    @SuppressWarnings("deprecation") // the Liquibase facade is what dropwizard-migrations drives as well
    public static void migrate(Connection connection) throws LiquibaseException, SQLException {
        // Liquibase turns auto-commit off and leaves it so; the caller's connection must come back as it went in
        boolean autoCommit = connection.getAutoCommit();
        // By default Liquibase prints "Running Changeset", its update summary and its success line on System.out,
        // past the application's logging configuration. Its logger UI service and a summary output of LOG send
        // them to Liquibase's loggers instead, so the configured `liquibase` level decides whether they show.
        Map<String, Object> quiet = Map.of(Scope.Attr.ui.name(), new LoggerUIService());
        try {
            Scope.child(quiet, () -> {
                Liquibase liquibase = new Liquibase(CHANGE_LOG, new ClassLoaderResourceAccessor(),
                    new JdbcConnection(connection));
                liquibase.setShowSummaryOutput(UpdateSummaryOutputEnum.LOG);
                liquibase.update(new Contexts(), new LabelExpression());
            });
        } catch (LiquibaseException | SQLException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new LiquibaseException(e);
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }
}
