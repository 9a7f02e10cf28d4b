package io.github.dropwizardhikari;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.util.Credentials;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The {@code credentials:} block: files the pool reads its user and password from at each new connection, through
 * HikariCP's own {@link HikariCredentialsProvider}, so a secret rotated on disk applies without a restart.
 *
 * <table>
 * <caption>Configuration parameters</caption>
 * <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 * <tr><td>{@code userFile}</td><td>none: the {@code user} setting</td><td>A file holding the user.</td></tr>
 * <tr><td>{@code passwordFile}</td><td>none: the {@code password} setting</td><td>A file holding the
 * password.</td></tr>
 * <tr><td>{@code lifetime}</td><td>none</td><td>How long a credential stays valid once written, if it expires
 * (Vault leases, IAM tokens); a warning is logged when {@code maxConnectionAge} is longer.</td></tr>
 * </table>
 *
 * <p>At least one file is required; each must be readable when the configuration is validated. Line breaks at
 * the end of a file are ignored.</p>
 */
@ValidSettings
public class CredentialsFactory {

    @Nullable
    private String userFile;

    @Nullable
    private String passwordFile;

    @Nullable
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    private Duration lifetime;

    @JsonProperty
    public Optional<String> getUserFile() {
        return Optional.ofNullable(userFile);
    }

    @JsonProperty
    public void setUserFile(@Nullable String userFile) {
        this.userFile = userFile;
    }

    @JsonProperty
    public Optional<String> getPasswordFile() {
        return Optional.ofNullable(passwordFile);
    }

    @JsonProperty
    public void setPasswordFile(@Nullable String passwordFile) {
        this.passwordFile = passwordFile;
    }

    @JsonProperty
    public Optional<Duration> getLifetime() {
        return Optional.ofNullable(lifetime);
    }

    @JsonProperty
    public void setLifetime(@Nullable Duration lifetime) {
        this.lifetime = lifetime;
    }

    @JsonIgnore
    @ValidationMethod(message = "needs userFile, passwordFile or both")
    public boolean isAnyFileSet() {
        return userFile != null || passwordFile != null;
    }

    /** @return each file given that this process cannot read now; never reads a file's content */
    List<SettingsCheck.Error> errors() {
        List<SettingsCheck.Error> errors = new ArrayList<>();
        unreadable(userFile).ifPresent(problem -> errors.add(new SettingsCheck.Error("userFile", problem)));
        unreadable(passwordFile).ifPresent(problem -> errors.add(new SettingsCheck.Error("passwordFile", problem)));
        return errors;
    }

    private static Optional<String> unreadable(@Nullable String file) {
        if (file == null) {
            return Optional.empty();
        }
        String problem;
        try {
            Path path = Path.of(file);
            problem = file.isBlank() ? "the path is empty" : !Files.exists(path) ? file + " does not exist"
                : !Files.isRegularFile(path) ? file + " is not a regular file"
                : !Files.isReadable(path) ? file + " is not readable by this process" : null;
        } catch (InvalidPathException e) {
            problem = file + " is not a valid path (" + e.getReason() + ")";
        }
        return Optional.ofNullable(problem).map(reason -> "must name a readable file: " + reason);
    }

    /**
     * @param user     the {@code user} setting, used when there is no user file
     * @param password the {@code password} setting, used when there is no password file
     */
    HikariCredentialsProvider build(@Nullable String user, @Nullable String password) {
        return new FileCredentialsProvider(userFile == null ? null : Path.of(userFile), user,
            passwordFile == null ? null : Path.of(passwordFile), password);
    }

    /**
     * A database that revokes an expired credential (Vault drops the role) closes the connections opened with it.
     *
     * @param path             this block's path, such as {@code hikari.credentials}
     * @param maxConnectionAge {@code null} or 0 means no limit
     * @return the warning, if connections may outlive the credentials
     */
    Optional<String> lifetimeWarning(String path, @Nullable Duration maxConnectionAge) {
        long maxAge = maxConnectionAge == null ? 0 : maxConnectionAge.toMilliseconds();
        if (lifetime == null || (maxAge != 0 && maxAge <= lifetime.toMilliseconds())) {
            return Optional.empty();
        }
        String parent = path.substring(0, path.lastIndexOf('.') + 1);
        return Optional.of(parent + "maxConnectionAge (" + (maxAge == 0 ? "no limit" : maxConnectionAge)
            + ") is longer than " + path + ".lifetime (" + lifetime + "): connections may outlive the credentials "
            + "they were opened with, and fail when the database revokes them. Set " + parent + "maxConnectionAge "
            + "below the lifetime (leave time for the file to be renewed).");
    }

    @Override
    public String toString() {
        return "CredentialsFactory{userFile=" + userFile + ", passwordFile=" + passwordFile + ", lifetime="
            + lifetime + "}";
    }

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
}
