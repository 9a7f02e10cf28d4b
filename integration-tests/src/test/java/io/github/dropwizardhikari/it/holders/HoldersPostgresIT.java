package io.github.dropwizardhikari.it.holders;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

/**
 * The holders extension on PostgreSQL with Dropwizard's platform request threads, alone and beside every extension
 * that acts on borrows, listed first, in the middle and last: in each order an exhausted pool names its slow endpoint
 * first in the timeout (those {@code fair-borrowing}'s gate refuses too), the log, the admin view and the metrics,
 * and labels each hold with the request that borrowed it, never a thread that borrowed for it; a leak names its
 * endpoint; Jdbi, Hibernate and plain JDBC borrows count under their resource templates. {@code admission} is left
 * out: it keeps requests from reaching an exhausted pool, which is what the scenario drives; {@code credential-files}
 * too, as it needs files of secrets.
 */
class HoldersPostgresIT {
    @ParameterizedTest
    @ValueSource(strings = {"holders", "holders,fair-borrowing,fault-handling,operations,hdr-metrics",
        "fair-borrowing,fault-handling,holders,operations,hdr-metrics",
        "fault-handling,operations,hdr-metrics,fair-borrowing,holders"})
    void anExhaustedPoolNamesItsSlowEndpointFirst(String extensions) throws Exception {
        try (HoldersScenario scenario = new HoldersScenario(List.of(extensions.split(",")), false)) {
            scenario.anExhaustedPoolNamesItsSlowEndpointFirst();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"holders", "holders,fair-borrowing,fault-handling,operations,hdr-metrics",
        "fair-borrowing,fault-handling,holders,operations,hdr-metrics",
        "fault-handling,operations,hdr-metrics,fair-borrowing,holders"})
    void aLeakNamesItsEndpointAndEveryClientCountsUnderItsTemplate(String extensions) throws Exception {
        try (HoldersScenario scenario = new HoldersScenario(List.of(extensions.split(",")), false)) {
            scenario.everyClientsBorrowsCountUnderItsTemplate();
            scenario.aLeakNamesItsEndpoint();
        }
    }
}
