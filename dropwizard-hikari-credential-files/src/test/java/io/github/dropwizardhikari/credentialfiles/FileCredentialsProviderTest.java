package io.github.dropwizardhikari.credentialfiles;

import com.codahale.metrics.MetricRegistry;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.util.Credentials;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.BaseValidator;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FileCredentialsProviderTest {
    @BeforeAll
    static void saysItProvokesFaults() {
        System.out.println("This suite provokes, on purpose, connections that would outlive their credentials."
            + " WARN and ERROR lines in this log are expected.");
    }

    private static final String SECRET = "s3cr3t-Rotated";

    @TempDir
    Path directory;

    private final Validator validator = BaseValidator.newValidator();

    @Test
    void readsTheFilesAtEachCallAndDropsTrailingLineBreaks() throws Exception {
        Path user = Files.writeString(directory.resolve("username"), "app\n");
        Path password = Files.writeString(directory.resolve("password"), "first secret\r\n");
        FileCredentialsProvider provider = new FileCredentialsProvider(user, null, password, null);

        Credentials first = provider.getCredentials();
        Files.writeString(password, SECRET);
        Credentials second = provider.getCredentials();

        assertThat(first.getUsername()).isEqualTo("app");
        assertThat(first.getPassword()).isEqualTo("first secret");
        assertThat(second.getPassword()).isEqualTo(SECRET);
    }

    @Test
    void takesTheSettingWhereThereIsNoFile() throws Exception {
        Path password = Files.writeString(directory.resolve("password"), SECRET);

        Credentials credentials = new FileCredentialsProvider(null, "app", password, "ignored").getCredentials();

        assertThat(credentials.getUsername()).isEqualTo("app");
        assertThat(credentials.getPassword()).isEqualTo(SECRET);
    }

    @Test
    void aMissingFileNamesTheFileAndNeverPrintsASecret() throws Exception {
        Path user = Files.writeString(directory.resolve("username"), SECRET);
        Path password = directory.resolve("gone");
        FileCredentialsProvider provider = new FileCredentialsProvider(user, null, password, null);

        assertThatThrownBy(provider::getCredentials)
            .isInstanceOf(UncheckedIOException.class)
            .hasMessageContaining("cannot read the password file " + password)
            .hasMessageNotContaining(SECRET);
        assertThat(provider.toString()).contains(user.toString(), password.toString()).doesNotContain(SECRET);
    }

    @Test
    void validationNamesTheFieldOfAnUnreadableFile() throws Exception {
        CredentialFilesExtension extension = new CredentialFilesExtension();
        extension.setUserFile(directory.resolve("missing{user}").toString());
        extension.setPasswordFile(directory.toString());

        Set<String> violations = validator.validate(extension).stream()
            .map(violation -> violation.getPropertyPath() + " " + violation.getMessage())
            .collect(Collectors.toSet());

        assertThat(violations).containsExactlyInAnyOrder(
            "userFile must name a readable file: " + directory.resolve("missing{user}") + " does not exist",
            "passwordFile must name a readable file: " + directory + " is not a regular file");
    }

    @Test
    void validationNeedsAFile() {
        Set<ConstraintViolation<CredentialFilesExtension>> violations =
            validator.validate(new CredentialFilesExtension());

        assertThat(violations).extracting(ConstraintViolation::getMessage)
            .containsExactly("needs userFile, passwordFile or both");
    }

    @Test
    void readableFilesPass() throws Exception {
        CredentialFilesExtension extension = new CredentialFilesExtension();
        extension.setPasswordFile(Files.writeString(directory.resolve("password"), SECRET).toString());
        HikariConfig config = new HikariConfig();
        config.setPoolName("files");
        config.setUsername("app");

        assertThat(validator.validate(extension)).isEmpty();
        extension.attach(config, new MetricRegistry());
        assertThat(config.getCredentialsProvider().getCredentials().getUsername()).isEqualTo("app");
        assertThat(config.getCredentialsProvider().getCredentials().getPassword()).isEqualTo(SECRET);
    }

    @Test
    void warnsWhenConnectionsMayOutliveTheCredential() {
        CredentialFilesExtension extension = new CredentialFilesExtension();
        assertThat(extension.lifetimeWarning("app", Duration.minutes(30).toMilliseconds()))
            .as("no lifetime, no warning").isEmpty();
        extension.setLifetime(Duration.minutes(15));

        assertThat(extension.lifetimeWarning("app", Duration.minutes(10).toMilliseconds())).isEmpty();
        assertThat(extension.lifetimeWarning("app", Duration.minutes(30).toMilliseconds())).contains(
            "pool app: maxConnectionAge (30 minutes) is longer than credential-files.lifetime (15 minutes): "
                + "connections may outlive the credentials they were opened with, and fail when the database "
                + "revokes them. Set maxConnectionAge below the lifetime (leave time for the file to be renewed).");
        assertThat(extension.lifetimeWarning("app", 0)).contains(
            "pool app: maxConnectionAge (no limit) is longer than credential-files.lifetime (15 minutes): "
                + "connections may outlive the credentials they were opened with, and fail when the database "
                + "revokes them. Set maxConnectionAge below the lifetime (leave time for the file to be renewed).");
        HikariDataSourceFactory noLimit = new HikariDataSourceFactory();
        noLimit.setUrl("jdbc:h2:mem:no-limit");
        noLimit.setMaxConnectionAge(null);
        assertThat(extension.lifetimeWarning("app", noLimit.toHikariConfig(new MetricRegistry(), "app")
            .getMaxLifetime())).as("null: no limit, as in Dropwizard").isPresent();
    }
}
