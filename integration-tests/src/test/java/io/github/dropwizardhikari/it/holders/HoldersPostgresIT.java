package io.github.dropwizardhikari.it.holders;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

/**
 * The holders extension on PostgreSQL with Dropwizard's platform request threads, alone and listed first beside
 * {@code fair-borrowing} and {@code fault-handling}: an exhausted pool names its slow endpoint first in the timeout,
 * the log, the admin view and the metrics; a leak names its endpoint; Jdbi, Hibernate and plain JDBC borrows count
 * under their resource templates.
 */
class HoldersPostgresIT {
    @ParameterizedTest
    @ValueSource(strings = {"holders", "holders,fair-borrowing,fault-handling"})
    void anExhaustedPoolNamesItsSlowEndpointFirst(String extensions) throws Exception {
        try (HoldersScenario scenario = new HoldersScenario(List.of(extensions.split(",")), false)) {
            scenario.anExhaustedPoolNamesItsSlowEndpointFirst();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"holders", "holders,fair-borrowing,fault-handling"})
    void aLeakNamesItsEndpointAndEveryClientCountsUnderItsTemplate(String extensions) throws Exception {
        try (HoldersScenario scenario = new HoldersScenario(List.of(extensions.split(",")), false)) {
            scenario.everyClientsBorrowsCountUnderItsTemplate();
            scenario.aLeakNamesItsEndpoint();
        }
    }
}
