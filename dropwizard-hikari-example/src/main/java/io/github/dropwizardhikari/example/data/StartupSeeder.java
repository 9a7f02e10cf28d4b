package io.github.dropwizardhikari.example.data;

import io.github.dropwizardhikari.example.SeedConfiguration;
import io.github.dropwizardhikari.example.db.QuestionDao;
import io.github.dropwizardhikari.example.db.SchemaMigration;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Migrates the schema and generates a data set into an empty table when the configuration asks for it. */
public final class StartupSeeder {
    private static final Logger LOGGER = LoggerFactory.getLogger(StartupSeeder.class);

    private final SeedConfiguration seed;

    public StartupSeeder(SeedConfiguration seed) {
        this.seed = seed;
    }

    public void run(Jdbi jdbi) throws Exception {
        if (seed.isMigrateOnStart()) {
            jdbi.useHandle(handle -> SchemaMigration.migrate(handle.getConnection()));
        }
        if (seed.getRows() == 0 || jdbi.withExtension(QuestionDao.class, QuestionDao::count) > 0) {
            return;
        }
        Path csv = Files.createTempFile("questions-", ".csv");
        try {
            try (Writer out = Files.newBufferedWriter(csv, StandardCharsets.UTF_8)) {
                new QuestionGenerator(seed.getRandomSeed(), seed.getOwners()).write(seed.getRows(), out);
            }
            QuestionCsvLoader.Result result = jdbi.withHandle(handle ->
                new QuestionCsvLoader(rows -> { }, 0).load(handle.getConnection(), csv));
            LOGGER.info("Seeded {} questions ({}) in {} ms", result.rows(), result.method(),
                result.elapsed().toMillis());
        } finally {
            Files.deleteIfExists(csv);
        }
    }
}
