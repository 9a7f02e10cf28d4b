package io.github.dropwizardhikari.credentials;

import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.util.Credentials;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads the user and password from files at each new connection, so a secret rotated on disk (a Kubernetes mount,
 * Vault Agent) applies without a restart. Trailing line breaks are dropped, as {@code echo} and templating tools add
 * one. The values are never logged: errors and {@link #toString()} name the files only.
 */
public final class FileCredentialsProvider implements HikariCredentialsProvider {
    @Nullable
    private final Path userFile;
    @Nullable
    private final String user;
    @Nullable
    private final Path passwordFile;
    @Nullable
    private final String password;

    /**
     * @param userFile     {@code null} to use {@code user}
     * @param passwordFile {@code null} to use {@code password}
     */
    public FileCredentialsProvider(@Nullable Path userFile, @Nullable String user, @Nullable Path passwordFile,
                                   @Nullable String password) {
        this.userFile = userFile;
        this.user = user;
        this.passwordFile = passwordFile;
        this.password = password;
    }

    /** @throws UncheckedIOException when a file cannot be read; HikariCP fails this attempt and tries again */
    @Override
    public Credentials getCredentials() {
        String currentUser = userFile == null ? user : read(userFile, "user");
        String currentPassword = passwordFile == null ? password : read(passwordFile, "password");
        return Credentials.of(currentUser, currentPassword);
    }

    private static String read(Path file, String what) {
        try {
            return Files.readString(file).replaceFirst("[\\r\\n]+\\z", "");
        } catch (IOException e) {
            // the exception's message is the file name or the OS's reason, never the content
            throw new UncheckedIOException("cannot read the " + what + " file " + file + ": "
                + e.getClass().getSimpleName() + " " + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "FileCredentialsProvider{userFile=" + (userFile == null ? "none (user setting)" : userFile)
            + ", passwordFile=" + (passwordFile == null ? "none (password setting)" : passwordFile) + "}";
    }
}
