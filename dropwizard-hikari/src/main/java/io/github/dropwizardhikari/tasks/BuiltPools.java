package io.github.dropwizardhikari.tasks;

import com.codahale.metrics.MetricRegistry;
import io.github.dropwizardhikari.pool.ManagedHikariDataSource;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;

/**
 * The pools built for each {@link MetricRegistry}, that is for each Dropwizard environment, whichever client built
 * them (JDBI, Hibernate, the bundle, the application) and in whatever order the bundles run. The factory reports
 * every pool it builds; the admin tasks read them back by the environment's registry.
 *
 * <p>Only weak references are kept: a pool that nothing else holds, and the registry of a throwaway environment
 * (migrations build their pool on {@code new MetricRegistry()}), can still be collected.</p>
 */
public final class BuiltPools {
    private static final Map<MetricRegistry, List<WeakReference<ManagedHikariDataSource>>> POOLS =
        new WeakHashMap<>();

    private BuiltPools() {
    }

    /** Records a pool built with {@code registry}. */
    public static void remember(MetricRegistry registry, ManagedHikariDataSource pool) {
        synchronized (POOLS) {
            List<WeakReference<ManagedHikariDataSource>> pools = POOLS.computeIfAbsent(registry,
                key -> new ArrayList<>());
            pools.removeIf(reference -> reference.get() == null);
            pools.add(new WeakReference<>(pool));
        }
    }

    /**
     * @return the pools built with {@code registry}, read at each call
     */
    public static KnownPools of(MetricRegistry registry) {
        WeakReference<MetricRegistry> key = new WeakReference<>(registry);
        return () -> {
            MetricRegistry current = key.get();
            if (current == null) {
                return List.of();
            }
            synchronized (POOLS) {
                return POOLS.getOrDefault(current, List.of()).stream()
                    .map(WeakReference::get)
                    .filter(Objects::nonNull)
                    .toList();
            }
        };
    }
}
