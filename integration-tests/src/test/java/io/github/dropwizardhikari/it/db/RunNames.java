package io.github.dropwizardhikari.it.db;

import java.security.SecureRandom;
import java.util.Locale;

/**
 * Names of databases, schemas and tables that are unique to this test run. Several builds may share one database
 * server (the local MariaDB, a PostgreSQL service, CI jobs that overlap), so a fixed name such as {@code it_safety}
 * would let one run drop or fill another run's tables. Every name a test creates on a server goes through
 * {@link #unique(String)}; {@link TestDatabase#isolated(String)} does it for the namespaces of test classes.
 */
public final class RunNames {
    /**
     * The suffix of this JVM's names: {@code -Dit.run.id} when set (lowercase letters, digits, underscores),
     * otherwise eight random base-36 characters.
     */
    public static final String RUN_ID = runId();

    private RunNames() {
    }

    /** {@code base} followed by this run's id, such as {@code it_safety_k3x9q0ab}. */
    public static String unique(String base) {
        return base + "_" + RUN_ID;
    }

    private static String runId() {
        String configured = System.getProperty("it.run.id", "");
        if (!configured.isBlank()) {
            if (!configured.matches("[a-z0-9_]{1,16}")) {
                throw new IllegalArgumentException("it.run.id must be 1 to 16 of [a-z0-9_], not '" + configured + "'");
            }
            return configured;
        }
        SecureRandom random = new SecureRandom();
        StringBuilder id = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            id.append(Character.forDigit(random.nextInt(36), 36));
        }
        return id.toString().toLowerCase(Locale.ROOT);
    }
}
