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
        boolean postgres = url.startsWith("jdbc:postgresql:");
        String why = null;
        if (!postgres && !url.startsWith("jdbc:mariadb:")) {
            why = url.startsWith("jdbc:h2:") ? "H2 has no view of its sessions to ask"
                : "the check knows PostgreSQL's and MariaDB's views of their sessions (pgJDBC, MariaDB Connector/J, "
                + "by URL), not this pool's database";
        } else if (config.getDataSourceClassName() != null) {
            why = "the pool connects through dataSourceClassName, which the check cannot open alone";
        } else if (postgres && multiHostNotPrimary(url)) {
            why = "the URL names several hosts without targetServerType=primary, so sessions may live on servers "
                + "the check's own connection does not reach";
        } else if (!postgres && hosts(url, url.indexOf("//") + 2).contains(",")) {
            why = "the URL names several hosts, so sessions may live on servers the check's own connection does not "
                + "reach";
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
        // loginTimeout (seconds) and MariaDB's connectTimeout (ms) bound the whole connect; on PostgreSQL the name
        // shows the check's session in pg_stat_activity
        Properties properties = new Properties();
        properties.putAll(config.getDataSourceProperties());
        if (postgres) {
            properties.putIfAbsent("loginTimeout", String.valueOf(Math.max(1, (silenceMillis + 999) / 1000)));
            properties.putIfAbsent("ApplicationName", poolName + " session check");
        } else {
            properties.putIfAbsent("connectTimeout", String.valueOf(silenceMillis));
            // the pool's sockets known by session, so that a call blocked on a dead one can be ended
            if (!url.contains("socketfactory=")
                && config.getDataSourceProperties().getProperty("socketFactory") == null) {
                config.addDataSourceProperty("socketFactory", MariaDbSocketFactory.class.getName());
            }
        }
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
                + "of the check's own ({}) within maxSize {}: the pool lends at most {}, minSize {}; one whose session "
                + "the server no longer holds is aborted, and every one when the server has not answered for {} ms; a "
                + "query on a session it holds runs to its end", poolName, intervalMillis, postgres
                ? "PostgreSQL's pg_stat_activity by backend pid"
                : "MariaDB's information_schema.PROCESSLIST by thread id", maxSize, maxSize - 1,
            config.getMinimumIdle(), silenceMillis);
        DeadSessionCheck check = new DeadSessionCheck(poolName, postgres ? new PostgresSessions()
            : new MariaDbSessions(), opener, intervalMillis, silenceMillis);
        check.reserved(maxSize, minIdle);
        return check;
    }

    private static boolean multiHostNotPrimary(String url) {
        String hosts = url.startsWith("jdbc:postgresql://") ? hosts(url, "jdbc:postgresql://".length()) : "";
        return hosts.contains(",") && !url.matches(".*[?&]targetservertype=(primary|master)(&.*)?");
    }

    /** @return the URL's host list, from {@code start} to the next {@code /} */
    private static String hosts(String url, int start) {
        int end = url.indexOf('/', start);
        return start < 2 ? "" : url.substring(start, end < 0 ? url.length() : end);
    }
}
