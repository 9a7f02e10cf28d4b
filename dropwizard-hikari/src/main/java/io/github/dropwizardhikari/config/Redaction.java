package io.github.dropwizardhikari.config;

import org.jspecify.annotations.Nullable;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/** Hides credentials in printed values: {@code password=...} in JDBC URLs, secrets in driver properties. */
public final class Redaction {
    public static final String MASK = "<masked>";

    // a key=value pair in a JDBC URL's parameters (?a=b&c=d or ;a=b;c=d) whose key names a secret
    private static final Pattern SECRET_URL_PARAMETER =
        Pattern.compile("([?&;:][^&;=?/]*(?:password|passwd|pwd|secret|token|key)[^&;=]*=)[^&;]*",
            Pattern.CASE_INSENSITIVE);
    // user:password@host in URLs such as jdbc:mysql://user:secret@host/db
    private static final Pattern USER_INFO = Pattern.compile("(//[^/@:]+:)[^/@]*@");

    private Redaction() {
    }

    @Nullable
    public static String url(@Nullable String url) {
        if (url == null) {
            return null;
        }
        String masked = SECRET_URL_PARAMETER.matcher(url).replaceAll("$1" + MASK);
        return USER_INFO.matcher(masked).replaceAll("$1" + MASK + "@");
    }

    public static Map<String, String> properties(Map<String, String> properties) {
        Map<String, String> masked = new LinkedHashMap<>();
        // a value under an innocent key may still be a URL or connection string with a password in it
        properties.forEach((key, value) -> masked.put(key, isSecretKey(key) ? MASK : url(value)));
        return masked;
    }

    static boolean isSecretKey(String key) {
        String lower = key.toLowerCase(Locale.ROOT);
        return lower.contains("password") || lower.contains("passwd") || lower.contains("pwd")
            || lower.contains("secret") || lower.contains("token") || lower.contains("key");
    }
}
