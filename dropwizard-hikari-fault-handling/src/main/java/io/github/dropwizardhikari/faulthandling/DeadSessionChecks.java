package io.github.dropwizardhikari.faulthandling;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.util.Credentials;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Properties;

/** Decides whether a pool's sessions can be checked, and how the check connects: as the pool does. */
final class DeadSessionChecks {
    private static final Logger LOGGER = LoggerFactory.getLogger(DeadSessionCheck.class);

    private DeadSessionChecks() {
    }

    /**
     * Call before anything replaces the configuration's data source, since the check connects as the user's settings
     * say, not through the fault handling's retries.
     *
     * @return the check for the pool, or {@code null} (said at INFO) when it has none
     */
    @Nullable
    static DeadSessionCheck of(HikariConfig config, long intervalMillis, long silenceMillis) {
        String poolName = config.getPoolName();
        if (intervalMillis <= 0) {
            return null;
        }
        String url = config.getJdbcUrl() == null ? "" : config.getJdbcUrl().toLowerCase(Locale.ROOT);
        String why = null;
        if (!url.startsWith("jdbc:postgresql:")) {
            why = url.startsWith("jdbc:h2:") ? "H2 has no view of its sessions to ask"
                : "the check knows PostgreSQL's view of its sessions (pgJDBC, by URL), not this pool's database";
        } else if (config.getDataSourceClassName() != null) {
            why = "the pool connects through dataSourceClassName, which the check cannot open alone";
        } else if (multiHostNotPrimary(url)) {
            why = "the URL names several hosts without targetServerType=primary, so sessions may live on servers "
                + "the check's own connection does not reach";
        }
        if (why != null) {
            LOGGER.info("Pool {}: no session check: {}", poolName, why);
            return null;
        }
        // the check's connection counts within maxSize: the pool lends one fewer, so that the two never pass it
        int maxSize = config.getMaximumPoolSize();
        if (maxSize <= 1) {
            LOGGER.warn("Pool {}: no session check: maxSize is {}, and the check's own connection would be a second "
                + "one; a dead session is not cut (set maxSize: 2 or more for the check)", poolName, maxSize);
            return null;
        }
        int minIdle = config.getMinimumIdle();
        config.setMaximumPoolSize(maxSize - 1);
        config.setMinimumIdle(Math.min(minIdle, maxSize - 1));
        // a server that accepts the connection and then says nothing must not hold the check's thread: pgJDBC's
        // loginTimeout bounds the whole connect; the name shows the check's session in pg_stat_activity
        Properties properties = new Properties();
        properties.putAll(config.getDataSourceProperties());
        properties.putIfAbsent("loginTimeout", String.valueOf(Math.max(1, (silenceMillis + 999) / 1000)));
        properties.putIfAbsent("ApplicationName", poolName + " session check");
        DataSource source = config.getDataSource();
        String jdbcUrl = config.getJdbcUrl();
        String user = config.getUsername();
        String password = config.getPassword();
        HikariCredentialsProvider credentials = config.getCredentialsProvider();
        DeadSessionCheck.Opener opener = source != null ? source::getConnection : () -> {
            Credentials current = credentials == null ? null : credentials.getCredentials();
            Properties attempt = new Properties();
            attempt.putAll(properties);
            String name = current == null ? user : current.getUsername();
            String secret = current == null ? password : current.getPassword();
            if (name != null) {
                attempt.setProperty("user", name);
            }
            if (secret != null) {
                attempt.setProperty("password", secret);
            }
            // the driver HikariCP finds for the URL, as DriverManager has it registered
            Connection connection = DriverManager.getDriver(jdbcUrl).connect(jdbcUrl, attempt);
            if (connection == null) {
                throw new SQLException("no driver accepts the pool's URL", "08001");
            }
            return connection;
        };
        LOGGER.info("Pool {}: sessions checked every {} ms while a connection is borrowed that long, on one connection "
                + "of the check's own (PostgreSQL's pg_stat_activity) within maxSize {}: the pool lends at most {}, "
                + "minSize {}; one whose session the server no longer holds is aborted, and every one when the server "
                + "has not answered for {} ms; a query on a session it holds runs to its end", poolName, intervalMillis,
            maxSize, maxSize - 1, config.getMinimumIdle(), silenceMillis);
        DeadSessionCheck check = new DeadSessionCheck(poolName, new PostgresSessions(), opener, intervalMillis,
            silenceMillis);
        check.reserved(maxSize, minIdle);
        return check;
    }

    private static boolean multiHostNotPrimary(String url) {
        int hostsEnd = url.indexOf('/', "jdbc:postgresql://".length());
        String hosts = url.startsWith("jdbc:postgresql://") ? url.substring("jdbc:postgresql://".length(),
            hostsEnd < 0 ? url.length() : hostsEnd) : "";
        return hosts.contains(",") && !url.matches(".*[?&]targetservertype=(primary|master)(&.*)?");
    }
}
