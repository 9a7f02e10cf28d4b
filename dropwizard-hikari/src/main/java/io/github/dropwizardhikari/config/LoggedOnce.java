package io.github.dropwizardhikari.config;

import java.util.HashSet;
import java.util.Set;

/** Which warnings one configuration block has logged: a block may be validated and built several times. */
public final class LoggedOnce {
    private final Set<String> logged = new HashSet<>();

    /** @return {@code true} the first time it is asked for {@code warning} */
    public synchronized boolean firstTime(String warning) {
        return logged.add(warning);
    }
}
