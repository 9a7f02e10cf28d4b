package io.github.dropwizardhikari.faulthandling;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.util.Credentials;
import com.zaxxer.hikari.util.DriverDataSource;
import org.jspecify.annotations.Nullable;

import javax.sql.DataSource;
import java.util.Objects;
import java.util.Optional;

/**
 * The data source HikariCP 7.1 builds for a pool configured by URL, {@link DriverDataSource} (public, with the
 * constructor HikariCP's own pool calls), built here so that {@link RetryingDataSource} can stand in front of it.
 */
final class UrlConnections {
    private final HikariConfig config;
    private volatile Built built;
    private volatile boolean started;

    private record Built(@Nullable String user, @Nullable String password, DataSource connections) {
    }

    private UrlConnections(HikariConfig config, Built built) {
        this.config = config;
        this.built = built;
    }

    /**
     * @return HikariCP's data source for {@code config}, or nothing where HikariCP would refuse the block (no driver,
     *     a driver that refuses the URL): HikariCP then builds its own and fails in its own words
     */
    static Optional<UrlConnections> of(HikariConfig config) {
        try {
            return Optional.of(new UrlConnections(config, build(config, credentials(config))));
        } catch (RuntimeException refused) {
            return Optional.empty();
        }
    }

    /**
     * @return HikariCP's data source, with the credentials HikariCP starts with: read at the first connection, as
     *     HikariCP reads them when it opens the pool, after every extension (one listed later may set a provider)
     */
    DataSource connections() {
        Built now = built;
        if (!started) {
            Credentials credentials = credentials(config);
            if (!Objects.equals(now.user(), credentials.getUsername())
                || !Objects.equals(now.password(), credentials.getPassword())) {
                now = build(config, credentials);
                built = now;
            }
            started = true;
        }
        return now.connections();
    }

    private static Credentials credentials(HikariConfig config) {
        HikariCredentialsProvider provider = config.getCredentialsProvider();
        return provider != null ? provider.getCredentials() : config.getCredentials();
    }

    private static Built build(HikariConfig config, Credentials credentials) {
        return new Built(credentials.getUsername(), credentials.getPassword(), new DriverDataSource(
            config.getJdbcUrl(), config.getDriverClassName(), config.getDataSourceProperties(),
            credentials.getUsername(), credentials.getPassword()));
    }
}
