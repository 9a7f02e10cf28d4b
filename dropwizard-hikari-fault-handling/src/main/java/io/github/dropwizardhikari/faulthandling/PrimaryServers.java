package io.github.dropwizardhikari.faulthandling;

import com.codahale.metrics.MetricRegistry;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CopyOnWriteArraySet;

/**
 * Running pools that expect a primary, which learn from one another that a server turned read-only (as a demoted
 * primary does): those of one block (a block's pools share one instance of the extension), and those of one
 * application, that is of one {@link MetricRegistry} (Dropwizard gives every pool of an application its
 * {@code environment.metrics()}). Only running pools are held: a pool leaves when it stops.
 */
final class PrimaryServers {
    // weak keys: an application's registry and its entry go once nothing else holds the registry
    private static final Map<MetricRegistry, PrimaryServers> APPLICATIONS =
        Collections.synchronizedMap(new WeakHashMap<>());

    private final Set<ServerRole> running = new CopyOnWriteArraySet<>();

    /** @return the running pools of the application whose pools record their metrics into {@code metrics} */
    static PrimaryServers of(MetricRegistry metrics) {
        return APPLICATIONS.computeIfAbsent(metrics, registry -> new PrimaryServers());
    }

    void join(ServerRole role) {
        running.add(role);
    }

    void leave(ServerRole role) {
        running.remove(role);
    }

    Set<ServerRole> running() {
        return Collections.unmodifiableSet(running);
    }
}
