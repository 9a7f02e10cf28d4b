package io.github.dropwizardhikari.example;

import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The example application in the configurations its tests compare. Each application gets its own system
 * property prefix for its overrides, so several can run in one JVM without seeing each other's settings.
 */
final class TestApps {
    private TestApps() {
    }

    static DropwizardAppExtension<QuestionsConfiguration> hikariOnH2(String database, String... settings) {
        return app("test-hikari.yml", database, with(settings, "hikari.url", h2(database)));
    }

    static DropwizardAppExtension<QuestionsConfiguration> tomcatOnH2(String database, String... settings) {
        return app("test-tomcat.yml", database, with(settings, "database.url", h2(database)));
    }

    static DropwizardAppExtension<QuestionsConfiguration> hikariOnPostgres(String schema) {
        return app("test-hikari.yml", schema, with(new String[0],
            "hikari.url", TestPostgres.freshSchema(schema),
            "hikari.user", TestPostgres.user(),
            "hikari.password", TestPostgres.password()));
    }

    static DropwizardAppExtension<QuestionsConfiguration> tomcatOnPostgres(String schema) {
        return app("test-tomcat.yml", schema, with(new String[0],
            "database.url", TestPostgres.freshSchema(schema),
            "database.driverClass", "org.postgresql.Driver",
            "database.user", TestPostgres.user(),
            "database.password", TestPostgres.password()));
    }

    private static String h2(String database) {
        return "jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1";
    }

    private static Map<String, String> with(String[] settings, String... pairs) {
        Map<String, String> all = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            all.put(pairs[i], pairs[i + 1]);
        }
        for (int i = 0; i < settings.length; i += 2) {
            all.put(settings[i], settings[i + 1]);
        }
        return all;
    }

    private static DropwizardAppExtension<QuestionsConfiguration> app(String file, String name,
                                                                      Map<String, String> settings) {
        String prefix = "dw-" + name;
        ConfigOverride[] overrides = settings.entrySet().stream()
            .map(setting -> ConfigOverride.config(prefix, setting.getKey(), setting.getValue()))
            .toArray(ConfigOverride[]::new);
        return new DropwizardAppExtension<>(QuestionsApplication.class, ResourceHelpers.resourceFilePath(file),
            prefix, overrides);
    }
}
