package io.github.dropwizardhikari.it.holders;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import io.github.dropwizardhikari.it.dropin.Commands;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The holders extension on the commands of Dropwizard's {@code MigrationsBundle}, run through the application's CLI
 * as {@code java -jar app.jar db migrate config.yml} runs them, on PostgreSQL: the command builds its own pool of
 * one connection, {@code liquibase}, from the block, and the extension follows its borrows: counted under
 * {@code other} in the registry the command built the pool with, held by the command's thread, and named in the
 * warning about a migration that holds its connection past {@code leakDetectionThreshold}.
 */
class HoldersCommandsPostgresIT {
    private static final String COUNTED = "liquibase.pool.Holders.other.Borrows";

    private TestDatabase database;
    private Path config;

    @BeforeEach
    void writeConfig() throws Exception {
        TestDatabase server = TestDatabases.postgres();
        database = server.isolated("it_holders_commands");
        config = Files.createTempFile("holders-commands", ".yml");
        Files.writeString(config, "hikari:\n"
            + "  url: " + database.url() + "\n"
            + "  user: " + database.user() + "\n"
            + "  password: \"" + database.password() + "\"\n"
            + "  maxSize: 4\n"
            + "  minSize: 4\n"
            + "  leakDetectionThreshold: 2 seconds\n"
            + "  extensions:\n"
            + "    - type: holders\n"
            + "logging:\n  level: WARN\n");
    }

    @AfterEach
    void deleteConfig() throws Exception {
        Files.deleteIfExists(config);
    }

    @Test
    void dbMigrateAndDbStatusBorrowsAreHeldByTheCommandsThread() throws Exception {
        HoldersCommandsApp migrate = new HoldersCommandsApp();
        String migrated = Commands.run(migrate, "db", "migrate", config.toString());
        System.out.println("db migrate printed:\n" + migrated);

        assertThat(tables()).contains("holders_reports", "databasechangelog");
        assertThat(migrate.commandCounters).containsKey(COUNTED);
        assertThat(migrate.commandCounters.get(COUNTED).getCount()).isGreaterThan(0);
        // a command's thread is no resource method or task: its borrows have no series of their own
        assertThat(migrate.commandCounters.keySet()).filteredOn(name -> name.contains(".Holders."))
            .containsOnly(COUNTED);
        // the changeSet sleeps 3 s on the connection, past the 2 s threshold, so the warning cannot be missed
        String holder = "thread \"" + Thread.currentThread().getName() + "\"";
        assertThat(migrated.lines().filter(line -> line.contains("past leakDetectionThreshold (2000 ms)")))
            .singleElement().satisfies(line -> assertThat(line).contains(
                "io.github.dropwizardhikari.holders.PoolHolds: Pool liquibase: a connection borrowed by " + holder
                    + " has been held for "));
        // the pool's metrics leave the command's registry when its pool stops
        assertThat(migrate.commandRegistries).singleElement().satisfies(registry -> assertThat(registry.getNames())
            .noneMatch(name -> name.startsWith(MetricRegistry.name("liquibase", "pool"))));

        HoldersCommandsApp status = new HoldersCommandsApp();
        String statusOutput = Commands.run(status, "db", "status", config.toString());
        System.out.println("db status printed:\n" + statusOutput);

        assertThat(statusOutput).containsIgnoringCase("is up to date");
        Counter statusBorrows = status.commandCounters.get(COUNTED);
        assertThat(statusBorrows).isNotNull();
        assertThat(statusBorrows.getCount()).isGreaterThan(0);
    }

    private List<String> tables() throws Exception {
        try (Connection connection = database.connect(); Statement statement = connection.createStatement();
             ResultSet tables = statement.executeQuery("SELECT table_name FROM information_schema.tables "
                 + "WHERE table_schema = current_schema() ORDER BY table_name")) {
            List<String> names = new ArrayList<>();
            while (tables.next()) {
                names.add(tables.getString(1));
            }
            return names;
        }
    }
}
