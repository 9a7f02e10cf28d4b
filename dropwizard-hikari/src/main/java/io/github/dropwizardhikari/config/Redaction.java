package io.github.dropwizardhikari.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import org.jspecify.annotations.Nullable;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/** Hides credentials in printed values: {@code password=...} in JDBC URLs, secrets in driver properties. */
public final class Redaction {
    public static final String MASK = "<masked>";

    private static final Pattern SECRET_KEY = Pattern.compile("password|passwd|pwd|secret|token|key",
        Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
    // a key=value pair in a JDBC URL's parameters (?a=b&c=d or ;a=b;c=d) whose key names a secret
    private static final Pattern SECRET_URL_PARAMETER =
        Pattern.compile("([?&;:][^&;=?/]*(?:" + SECRET_KEY.pattern() + ")[^&;=]*=)[^&;]*", Pattern.CASE_INSENSITIVE);
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
        return SECRET_KEY.matcher(key).find();
    }

    /** Writes a JDBC URL to JSON the way {@code toString()} prints it. */
    public static final class MaskedUrl extends StdSerializer<String> {
        public MaskedUrl() {
            super(String.class);
        }

        @Override
        public void serialize(String url, JsonGenerator generator, SerializerProvider provider) throws IOException {
            generator.writeString(Redaction.url(url));
        }
    }

    /** Writes driver properties to JSON the way {@code toString()} prints them. */
    public static final class MaskedProperties extends StdSerializer<Map<String, String>> {
        @SuppressWarnings("unchecked")
        public MaskedProperties() {
            super((Class<Map<String, String>>) (Class<?>) Map.class);
        }

        @Override
        public void serialize(Map<String, String> properties, JsonGenerator generator, SerializerProvider provider)
            throws IOException {
            generator.writeStartObject();
            for (Map.Entry<String, String> entry : Redaction.properties(properties).entrySet()) {
                generator.writeStringField(entry.getKey(), entry.getValue());
            }
            generator.writeEndObject();
        }
    }
}
