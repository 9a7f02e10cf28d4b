package io.github.dropwizardhikari.example.db;

import liquibase.Contexts;
import liquibase.LabelExpression;
import liquibase.Liquibase;
import liquibase.database.jvm.JdbcConnection;
import liquibase.exception.LiquibaseException;
import liquibase.resource.ClassLoaderResourceAccessor;

import java.sql.Connection;
import java.sql.SQLException;

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
        try {
            Liquibase liquibase = new Liquibase(CHANGE_LOG, new ClassLoaderResourceAccessor(),
                new JdbcConnection(connection));
            liquibase.update(new Contexts(), new LabelExpression());
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }
}
