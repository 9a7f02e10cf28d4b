package io.github.dropwizardhikari.sizing;

import org.jspecify.annotations.Nullable;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Asks PgBouncer's admin console for its limits. {@code SHOW CONFIG} answers only there: on the virtual database
 * {@code pgbouncer}, for users listed in {@code admin_users} or {@code stats_users}, and over the simple query
 * protocol. Any other {@code SHOW} sent through PgBouncer reaches the server behind it.
 */
final class PgBouncerConsole {
    private static final Pattern POSTGRES_URL = Pattern.compile("^jdbc:postgresql://([^/?]+)(?:/[^?]*)?(?:\\?(.*))?$");

    private PgBouncerConsole() {
    }

    /**
     * @param url the pool's JDBC URL; only {@code jdbc:postgresql://host:port/...} URLs can be followed
     * @throws SQLException when the console does not answer, or refuses this user
     */
    static PgBouncerLimit read(String url, @Nullable String user, @Nullable String password, int timeoutSeconds)
        throws SQLException {
        Matcher matcher = POSTGRES_URL.matcher(url);
        if (!matcher.matches()) {
            throw new SQLException("the URL does not name a PostgreSQL host and port");
        }
        Properties properties = new Properties();
        keepConnectionParameters(matcher.group(2), properties);
        if (user != null) {
            properties.setProperty("user", user);
        }
        if (password != null) {
            properties.setProperty("password", password);
        }
        // the console speaks only the simple query protocol, and refuses SET: PgBouncer reports its own version as
        // the server's, which would make the driver send its session settings as SET statements after login
        properties.setProperty("preferQueryMode", "simple");
        properties.setProperty("assumeMinServerVersion", "9.0");
        properties.setProperty("connectTimeout", Integer.toString(timeoutSeconds));
        properties.setProperty("loginTimeout", Integer.toString(timeoutSeconds));
        properties.setProperty("socketTimeout", Integer.toString(timeoutSeconds));
        properties.setProperty("ApplicationName", "dropwizard-hikari-sizing");
        Map<String, String> config = new HashMap<>();
        try (Connection console = DriverManager.getConnection("jdbc:postgresql://" + matcher.group(1) + "/pgbouncer",
            properties); Statement statement = console.createStatement();
             ResultSet result = statement.executeQuery("SHOW CONFIG")) {
            while (result.next()) {
                config.put(result.getString("key"), result.getString("value"));
            }
        }
        return new PgBouncerLimit(number(config, "max_client_conn"), number(config, "default_pool_size"),
            number(config, "max_db_connections"));
    }

    // TLS settings and credentials given in the URL apply to the console too; nothing else does (PgBouncer
    // refuses startup parameters it does not know, such as currentSchema's search_path)
    private static void keepConnectionParameters(@Nullable String query, Properties properties) {
        if (query == null) {
            return;
        }
        for (String pair : query.split("&")) {
            int equals = pair.indexOf('=');
            String key = equals < 0 ? pair : pair.substring(0, equals);
            if (key.startsWith("ssl") || key.equals("user") || key.equals("password")) {
                properties.setProperty(key, equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1),
                    StandardCharsets.UTF_8));
            }
        }
    }

    private static int number(Map<String, String> config, String key) throws SQLException {
        String value = config.get(key);
        if (value == null) {
            throw new SQLException("SHOW CONFIG has no " + key + "; is this PgBouncer's admin console?");
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new SQLException("SHOW CONFIG gave " + key + " = '" + value + "', not a number", e);
        }
    }
}
