package io.github.dropwizardhikari.config.rules;

import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Remembers which warnings each configuration block has logged, so that each is logged once per block however
 * often the block is validated or built.
 */
public final class LoggedOnce {
    private static final Map<Object, Set<String>> LOGGED = new WeakHashMap<>();

    private LoggedOnce() {
    }

    /**
     * @return {@code true} the first time it is asked for {@code block} and {@code key}
     */
    public static boolean firstTime(Object block, String key) {
        synchronized (LOGGED) {
            return LOGGED.computeIfAbsent(block, ignored -> Collections.synchronizedSet(new HashSet<>())).add(key);
        }
    }
}
