package io.github.dropwizardhikari.credentials;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import org.jspecify.annotations.Nullable;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The {@code credentials:} block: where the pool reads its user and password at each new connection.
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
public class CredentialsFactory {

    @Nullable
    @ReadableFile
    private String userFile;

    @Nullable
    @ReadableFile
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

    /**
     * @param user     the {@code user} setting, used when there is no user file
     * @param password the {@code password} setting, used when there is no password file
     */
    public FileCredentialsProvider build(@Nullable String user, @Nullable String password) {
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
    public Optional<String> lifetimeWarning(String path, @Nullable Duration maxConnectionAge) {
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
}
