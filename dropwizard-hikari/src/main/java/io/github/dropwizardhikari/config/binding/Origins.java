package io.github.dropwizardhikari.config.binding;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Remembers the {@link Origin} of each block parsed by {@link OriginRecordingDeserializer}, without keeping the
 * parsed object alive.
 */
public final class Origins {
    private static final Map<Object, Origin> ORIGINS = Collections.synchronizedMap(new WeakHashMap<>());

    private Origins() {
    }

    static void record(Object parsed, Origin origin) {
        ORIGINS.put(parsed, origin);
    }

    /**
     * @return where {@code parsed} was read from, or {@link Origin#JAVA} for an object built in Java
     */
    public static Origin of(Object parsed) {
        return ORIGINS.getOrDefault(parsed, Origin.JAVA);
    }
}
