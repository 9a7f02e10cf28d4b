package io.github.dropwizardhikari.credentials;

import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.util.Credentials;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * HikariCP's credentials provider that reads the user and the password from files each time the pool opens a
 * connection, so a secret rotated on disk (a Kubernetes secret mount, a file written by Vault Agent or by a
 * sidecar that fetches short-lived tokens) is used from the next new connection on, without a restart.
 *
 * <p>Either value may come from configuration instead of a file. Line breaks at the end of a file are dropped,
 * as {@code echo} and most templating tools add one. The values read are never logged or printed: a failure to
 * read names the file and the cause, {@link #toString()} names the files only.</p>
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
     * @param userFile     the file holding the user, or {@code null} to use {@code user}
     * @param user         the user when there is no user file
     * @param passwordFile the file holding the password, or {@code null} to use {@code password}
     * @param password     the password when there is no password file
     */
    public FileCredentialsProvider(@Nullable Path userFile, @Nullable String user, @Nullable Path passwordFile,
                                   @Nullable String password) {
        this.userFile = userFile;
        this.user = user;
        this.passwordFile = passwordFile;
        this.password = password;
    }

    /**
     * @throws UncheckedIOException when a file cannot be read; HikariCP then fails this connection attempt and
     *                              tries again, as for a database that refuses the connection
     */
    @Override
    public Credentials getCredentials() {
        String currentUser = userFile == null ? user : read(userFile, "user");
        String currentPassword = passwordFile == null ? password : read(passwordFile, "password");
        return Credentials.of(currentUser, currentPassword);
    }

    private static String read(Path file, String what) {
        try {
            return stripLineBreaks(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            // the exception's message is the file name or the OS's reason, never the content
            throw new UncheckedIOException("cannot read the " + what + " file " + file + ": "
                + e.getClass().getSimpleName() + " " + e.getMessage(), e);
        }
    }

    static String stripLineBreaks(String value) {
        int end = value.length();
        while (end > 0 && (value.charAt(end - 1) == '\n' || value.charAt(end - 1) == '\r')) {
            end--;
        }
        return value.substring(0, end);
    }

    @Override
    public String toString() {
        return "FileCredentialsProvider{userFile=" + (userFile == null ? "none (user setting)" : userFile)
            + ", passwordFile=" + (passwordFile == null ? "none (password setting)" : passwordFile) + "}";
    }
}
