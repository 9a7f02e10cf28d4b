package io.github.dropwizardhikari.tasks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.config.Redaction;
import io.github.dropwizardhikari.credentials.FileCredentialsProvider;
import io.github.dropwizardhikari.pool.ManagedHikariDataSource;
import org.jspecify.annotations.Nullable;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * {@code pool-status}: a pool's state, connection counts and current settings, one {@code name: value} line each
 * under the YAML names; the password is never printed, secrets in the URL and properties are masked.
 */
final class StatusTask extends PoolTask {
    StatusTask(KnownPools pools) {
        super("pool-status", pools);
    }

    @Override
    protected Action prepare(ManagedHikariDataSource pool, Map<String, List<String>> parameters) {
        return output -> {
            line(output, "pool", pool.getPoolName());
            if (pool.isRunning() && !pool.isClosed()) {
                HikariDataSource running = started(pool);
                HikariPoolMXBean bean = running.getHikariPoolMXBean();
                // HikariCP answers isRunning() false for a pool that is started but suspended
                line(output, "state", running.isClosed() ? "closed" : running.isRunning() ? "running" : "suspended");
                line(output, "connections", bean.getTotalConnections() + " total, " + bean.getActiveConnections()
                    + " in use, " + bean.getIdleConnections() + " idle, " + bean.getThreadsAwaitingConnection()
                    + " waiting");
                settings(output, running);
            } else {
                line(output, "state", pool.isClosed() ? "closed" : "not started (it starts on first use)");
                settings(output, pool.configurationCopy());
            }
        };
    }

    private static void settings(PrintWriter output, HikariConfig settings) {
        line(output, "url", Redaction.url(settings.getJdbcUrl()));
        line(output, "dataSourceClassName", settings.getDataSourceClassName());
        line(output, "driverClass", settings.getDriverClassName());
        line(output, "user", settings.getUsername());
        line(output, "password", settings.getPassword() == null ? "none" : Redaction.MASK);
        line(output, "credentials", describe(settings.getCredentialsProvider()));
        line(output, "properties", String.valueOf(Redaction.properties(strings(settings.getDataSourceProperties()))));
        line(output, "maxSize", String.valueOf(settings.getMaximumPoolSize()));
        line(output, "minSize", String.valueOf(settings.getMinimumIdle()));
        line(output, "maxWaitForConnection", millis(settings.getConnectionTimeout()));
        line(output, "minIdleTime", millis(settings.getIdleTimeout()));
        line(output, "maxConnectionAge", millis(settings.getMaxLifetime()));
        line(output, "keepaliveTime", millis(settings.getKeepaliveTime()));
        line(output, "leakDetectionThreshold", millis(settings.getLeakDetectionThreshold()));
        line(output, "validationQuery", settings.getConnectionTestQuery());
        line(output, "validationQueryTimeout", millis(settings.getValidationTimeout()));
        line(output, "initializationQuery", settings.getConnectionInitSql());
        line(output, "autoCommitByDefault", String.valueOf(settings.isAutoCommit()));
        line(output, "readOnlyByDefault", String.valueOf(settings.isReadOnly()));
        line(output, "defaultCatalog", settings.getCatalog());
        line(output, "defaultTransactionIsolation", settings.getTransactionIsolation());
        line(output, "schema", settings.getSchema());
        line(output, "allowPoolSuspension", String.valueOf(settings.isAllowPoolSuspension()));
        line(output, "registerMbeans", String.valueOf(settings.isRegisterMbeans()));
        line(output, "exceptionOverrideClassName", settings.getExceptionOverrideClassName());
    }

    private static String describe(@Nullable HikariCredentialsProvider provider) {
        if (provider == null) {
            return "user and password";
        }
        // our provider prints only its file names; another class might print what it holds
        return provider instanceof FileCredentialsProvider ? provider.toString() : provider.getClass().getName();
    }

    private static Map<String, String> strings(Properties properties) {
        Map<String, String> values = new TreeMap<>();
        properties.forEach((key, value) -> values.put(String.valueOf(key), String.valueOf(value)));
        return values;
    }

    private static String millis(long millis) {
        return Duration.milliseconds(millis).toString();
    }

    private static void line(PrintWriter output, String name, @Nullable String value) {
        output.println(name + ": " + (value == null ? "not set" : value));
    }
}
