package io.github.dropwizardhikari.credentialfiles;

import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.util.Credentials;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads the files at each call; trailing line breaks are dropped, as {@code echo} and templating tools add one.
 * Errors and {@link #toString()} name the files, never their content.
 *
 * @param userFile     {@code null} to use {@code user}
 * @param passwordFile {@code null} to use {@code password}
 */
record FileCredentialsProvider(@Nullable Path userFile, @Nullable String user, @Nullable Path passwordFile,
                               @Nullable String password) implements HikariCredentialsProvider {
    /** @throws UncheckedIOException when a file cannot be read; HikariCP fails this attempt and tries again */
    @Override
    public Credentials getCredentials() {
        return Credentials.of(userFile == null ? user : read(userFile, "user"),
            passwordFile == null ? password : read(passwordFile, "password"));
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
