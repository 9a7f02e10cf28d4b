package io.github.dropwizardhikari;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.SQLExceptionOverride;
import com.zaxxer.hikari.util.Credentials;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * HikariCP bugs the library works around, each shown still present in the HikariCP on the class path. When one of
 * these fails after an upgrade, HikariCP has fixed the bug: remove the workaround it names, then this test.
 */
class HikariWorkaroundsTest {

    /**
     * In HikariCP 7.1.0 {@code setCredentialsProviderClassName} also writes the exception override's class name, so
     * {@code PoolBuilder.hikariConfig} (behind {@code toHikariConfig}) sets the exception override after the
     * credentials provider.
     */
    @Test
    void hikariCp710CredentialsProviderSetterOverwritesTheExceptionOverridesClassName() {
        HikariConfig config = new HikariConfig();
        config.setExceptionOverrideClassName(NeverEvict.class.getName());

        config.setCredentialsProviderClassName(FixedCredentials.class.getName());

        assertThat(config.getExceptionOverrideClassName())
            .as("HikariCP's credentials-provider setter left the exception override's class name alone: the bug is "
                + "fixed, and the setter order in PoolBuilder.hikariConfig no longer matters")
            .isEqualTo(FixedCredentials.class.getName());
        // only the name: the override itself is still the one set
        assertThat(config.getExceptionOverride()).isInstanceOf(NeverEvict.class);
        assertThat(config.getCredentialsProvider()).isInstanceOf(FixedCredentials.class);
    }

    public static final class NeverEvict implements SQLExceptionOverride {
    }

    public static final class FixedCredentials implements HikariCredentialsProvider {
        @Override
        public Credentials getCredentials() {
            return Credentials.of("user", "password");
        }
    }
}
