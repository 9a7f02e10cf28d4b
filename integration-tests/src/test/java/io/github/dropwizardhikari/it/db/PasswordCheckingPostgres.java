package io.github.dropwizardhikari.it.db;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * An embedded PostgreSQL server of a test's own whose {@code pg_hba.conf} requires a SCRAM password from every
 * role but the superuser. The suite's shared server trusts every local login, so it would accept any password
 * and could not show a credential rotation.
 */
public final class PasswordCheckingPostgres implements AutoCloseable {
    private final EmbeddedPostgres server;

    private PasswordCheckingPostgres(EmbeddedPostgres server) {
        this.server = server;
    }

    public static PasswordCheckingPostgres start() throws IOException {
        return new PasswordCheckingPostgres(EmbeddedPostgres.builder()
            .setDataDirectoryCustomizer(dataDirectory -> requirePasswords(dataDirectory.toPath()))
            .start());
    }

    private static void requirePasswords(Path dataDirectory) {
        try {
            Files.writeString(dataDirectory.resolve("pg_hba.conf"), String.join("\n",
                "local all all trust",
                "host all postgres 127.0.0.1/32 trust",
                "host all postgres ::1/128 trust",
                "host all all 127.0.0.1/32 scram-sha-256",
                "host all all ::1/128 scram-sha-256", ""));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String url() {
        return "jdbc:postgresql://localhost:" + server.getPort() + "/postgres";
    }

    /** A connection as the superuser, who logs in without a password. */
    public Connection superuser() throws SQLException {
        return server.getPostgresDatabase().getConnection();
    }

    public Connection login(String role, String password) throws SQLException {
        return DriverManager.getConnection(url(), role, password);
    }

    /** Runs one statement as the superuser, such as {@code CREATE ROLE} or {@code ALTER ROLE}. */
    public void execute(String sql) throws SQLException {
        try (Connection admin = superuser(); Statement statement = admin.createStatement()) {
            statement.execute("SET password_encryption = 'scram-sha-256'");
            statement.execute(sql);
        }
    }

    /** This server as a {@link TestDatabase} that logs in as {@code role}. */
    public TestDatabase as(String role, String password) {
        return new TestDatabase(DatabaseKind.POSTGRES, url(), role, password,
            "embedded PostgreSQL (zonky) with SCRAM passwords");
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
