package io.github.dropwizardhikari.it.holders;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

/**
 * {@link HoldersPostgresIT} with {@code server.enableVirtualThreads: true}: the holder of each borrow is found on
 * the request's virtual thread just as on a platform one.
 */
class HoldersVirtualThreadsJdk21IT {
    @ParameterizedTest
    @ValueSource(strings = {"holders", "holders,fair-borrowing,fault-handling"})
    void anExhaustedPoolNamesItsSlowEndpointFirst(String extensions) throws Exception {
        try (HoldersScenario scenario = new HoldersScenario(List.of(extensions.split(",")), true)) {
            scenario.anExhaustedPoolNamesItsSlowEndpointFirst();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"holders", "holders,fair-borrowing,fault-handling"})
    void aLeakNamesItsEndpointAndEveryClientCountsUnderItsTemplate(String extensions) throws Exception {
        try (HoldersScenario scenario = new HoldersScenario(List.of(extensions.split(",")), true)) {
            scenario.everyClientsBorrowsCountUnderItsTemplate();
            scenario.aLeakNamesItsEndpoint();
        }
    }
}
