package io.github.dropwizardhikari;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/** Hides credentials in printed values: {@code password=...} in JDBC URLs, secrets in driver properties. */
final class Redaction {
    static final String MASK = "<masked>";

    private static final Pattern SECRET_KEY = Pattern.compile("password|passwd|pwd|secret|token|key",
        Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    // a key=value pair in a JDBC URL's parameters (?a=b&c=d or ;a=b;c=d) whose key names a secret
    private static final Pattern SECRET_URL_PARAMETER =
        Pattern.compile("([?&;:][^&;=?/]*(?:" + SECRET_KEY.pattern() + ")[^&;=]*=)[^&;]*", Pattern.CASE_INSENSITIVE);
    // user:password@host in URLs such as jdbc:mysql://user:secret@host/db
    private static final Pattern USER_INFO = Pattern.compile("(//[^/@:]+:)[^/@]*@");

    private Redaction() { }

    static @Nullable String url(@Nullable String url) {
        if (url == null) {
            return null;
        }
        String masked = SECRET_URL_PARAMETER.matcher(url).replaceAll("$1" + MASK);
        return USER_INFO.matcher(masked).replaceAll("$1" + MASK + "@");
    }

    static Map<String, String> properties(Map<String, String> properties) {
        Map<String, String> masked = new LinkedHashMap<>();
        // a value under an innocent key may still be a URL or connection string with a password in it
        properties.forEach((key, value) -> masked.put(key, SECRET_KEY.matcher(key).find() ? MASK : url(value)));
        return masked;
    }

    /** Writes a JDBC URL or driver properties to JSON the way {@code toString()} prints them. */
    static final class MaskedSerializer extends JsonSerializer<Object> {
        @Override
        @SuppressWarnings("unchecked")
        public void serialize(Object value, JsonGenerator generator, SerializerProvider provider) throws IOException {
            if (value instanceof String url) {
                generator.writeString(url(url));
            } else {
                provider.defaultSerializeValue(Redaction.properties((Map<String, String>) value), generator);
            }
        }
    }
}
