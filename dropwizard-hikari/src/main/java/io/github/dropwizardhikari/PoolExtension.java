package io.github.dropwizardhikari;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.jackson.Discoverable;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * An extra for the pools of one {@code hikari:} block, turned on by naming its type in the block's
 * {@code extensions:} list; with none named, the pools are HikariCP's alone.
 * <pre>{@code
 * hikari:
 *   url: jdbc:postgresql://db/app
 *   extensions:
 *     - type: fault-handling
 *     - type: fair-borrowing
 * }</pre>
 * <p>An extension is a Jackson type of its own module ({@code dropwizard-hikari-<type>}), found as Dropwizard finds
 * appenders: its class carries {@code @JsonTypeName("<type>")} and is listed in
 * {@code META-INF/services/io.github.dropwizardhikari.PoolExtension}. Its fields are its settings, validated with the
 * block. The core calls {@link #run} once per application and {@link #attach} each time a pool built from the block
 * starts; the hooks of the extensions named wrap one another in the order listed, the first seeing a borrow first.
 * Whatever its place in the list, each is told of every borrow's outcome ({@link PoolHooks#borrowed},
 * {@link PoolHooks#borrowFailed}) on the borrower's thread, and of each return ({@link PoolHooks#returned}, paired
 * with its borrow by connection) on the thread that closes it.</p>
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
public interface PoolExtension extends Discoverable {
    /**
     * Once per application, when {@link HikariBundle} runs: admin tasks, Jetty handlers, application-wide checks.
     * @param pools the pools built from the block and not stopped, at the time of each call
     */
    default void run(Environment environment, Supplier<List<ManagedHikariDataSource>> pools) { }

    /**
     * A pool built from the block is starting; HikariCP has not opened it yet. The extension may change
     * {@code config}: its exception override, its data source, its metrics tracker factory (wrap the one set, which
     * records HikariCP's metrics into {@code metrics}).
     * @param metrics the registry the pool's metrics go to
     * @return what the extension does for this pool while it runs
     */
    PoolHooks attach(HikariConfig config, MetricRegistry metrics);

    /**
     * @param listed the types the block's {@code extensions:} lists, in its order
     * @return what {@code check} warns of where this extension's place in {@code listed} changes what the pool does,
     *     saying which and why; nothing where it changes nothing
     */
    default Optional<String> placeWarning(List<String> listed) {
        return Optional.empty();
    }
}
