package io.github.dropwizardhikari.credentialfiles;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.PoolHooks;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads the pool's user and password from files at each new connection, through HikariCP's own
 * {@code HikariCredentialsProvider}, so a secret rotated on disk applies without a restart.
 *
 * <pre>{@code
 * hikari:
 *   url: jdbc:postgresql://db/app
 *   extensions:
 *     - type: credential-files
 *       userFile: /run/secrets/db-user
 *       passwordFile: /run/secrets/db-password
 *       lifetime: 1 hour
 * }</pre>
 *
 * <table>
 * <caption>Settings</caption>
 * <tr><th>Name</th><th>Default</th><th>Description</th></tr>
 * <tr><td>{@code userFile}</td><td>none: the {@code user} setting</td><td>A file holding the user.</td></tr>
 * <tr><td>{@code passwordFile}</td><td>none: the {@code password} setting</td><td>A file holding the
 * password.</td></tr>
 * <tr><td>{@code lifetime}</td><td>none</td><td>How long a credential stays valid once written, if it expires
 * (Vault leases, IAM tokens); a warning is logged when {@code maxConnectionAge} is longer.</td></tr>
 * </table>
 *
 * <p>At least one file is required; each must be readable when the configuration is validated. Line breaks at
 * the end of a file are ignored. A pool has one source per credential: a pool whose block also sets the file's
 * {@code user} or {@code password}, or a {@code credentialsProviderClassName}, does not start.</p>
 */
@JsonTypeName("credential-files")
public class CredentialFilesExtension implements PoolExtension {
    static final String TYPE = "credential-files";

    @Nullable
    @ReadableFile
    private String userFile;

    @Nullable
    @ReadableFile
    private String passwordFile;

    @Nullable
    @MinDuration(value = 1, unit = TimeUnit.SECONDS)
    private Duration lifetime;

    // the block's pools share their settings: the lifetime warning is said once for all of them
    @JsonIgnore
    private final AtomicBoolean lifetimeWarned = new AtomicBoolean();

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
     * Sets the files' provider on the pool, after the rules that involve the block's other settings, which an
     * extension first sees here.
     *
     * @throws IllegalStateException naming each setting in conflict; the pool does not start
     */
    @Override
    public PoolHooks attach(HikariConfig config, MetricRegistry metrics) {
        List<String> errors = new ArrayList<>();
        if (config.getCredentialsProvider() != null) {
            errors.add(TYPE + " must not be named together with credentialsProviderClassName (a pool has one "
                + "credentials provider)");
        }
        if (config.getUsername() != null && userFile != null) {
            errors.add("user must not be set together with " + TYPE + ".userFile (two sources for one setting)");
        }
        if (config.getPassword() != null && passwordFile != null) {
            errors.add("password must not be set together with " + TYPE + ".passwordFile (two sources for one "
                + "setting)");
        }
        if (!errors.isEmpty()) {
            throw new IllegalStateException("pool " + config.getPoolName() + ": " + String.join("; ", errors));
        }
        lifetimeWarning(config.getPoolName(), config.getMaxLifetime()).ifPresent(warning -> {
            if (lifetimeWarned.compareAndSet(false, true)) {
                LoggerFactory.getLogger(CredentialFilesExtension.class).warn(warning);
            }
        });
        config.setCredentialsProvider(new FileCredentialsProvider(userFile == null ? null : Path.of(userFile),
            config.getUsername(), passwordFile == null ? null : Path.of(passwordFile), config.getPassword()));
        return PoolHooks.NONE;
    }

    /**
     * A database that revokes an expired credential (Vault drops the role) closes the connections opened with it.
     *
     * @param maxLifetimeMillis HikariCP's {@code maxLifetime}: 0 means no limit
     * @return the warning, if connections may outlive the credentials
     */
    Optional<String> lifetimeWarning(String pool, long maxLifetimeMillis) {
        if (lifetime == null || (maxLifetimeMillis != 0 && maxLifetimeMillis <= lifetime.toMilliseconds())) {
            return Optional.empty();
        }
        return Optional.of("pool " + pool + ": maxConnectionAge (" + (maxLifetimeMillis == 0 ? "no limit"
            : readable(maxLifetimeMillis)) + ") is longer than " + TYPE + ".lifetime (" + lifetime + "): "
            + "connections may outlive the credentials they were opened with, and fail when the database revokes "
            + "them. Set maxConnectionAge below the lifetime (leave time for the file to be renewed).");
    }

    private static Duration readable(long millis) {
        return millis % 60_000 == 0 ? Duration.minutes(millis / 60_000)
            : millis % 1_000 == 0 ? Duration.seconds(millis / 1_000) : Duration.milliseconds(millis);
    }

    @Override
    public String toString() {
        return "CredentialFilesExtension{userFile=" + userFile + ", passwordFile=" + passwordFile + ", lifetime="
            + lifetime + "}";
    }
}
