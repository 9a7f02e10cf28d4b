package io.github.dropwizardhikari.operations;

import com.codahale.metrics.Gauge;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The extension named without {@code changeTasks}, on a running application: {@code pool-status} answers, the tasks
 * that change a pool are not registered at all, and {@code tomcatMetricNames: true} works without them.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class OperationsDefaultsTest {
    static final DropwizardAppExtension<PoolTasksApp.Config> APP = new DropwizardAppExtension<>(
        PoolTasksApp.class, ResourceHelpers.resourceFilePath("operations-defaults-app.yml"));

    private final AdminRequests requests = new AdminRequests();

    @Test
    void onlyPoolStatusIsRegistered() throws Exception {
        assertThat(requests.post(APP.getAdminPort(), "pool-status?pool=alpha").statusCode()).isEqualTo(200);
        for (ChangeTask task : ChangeTask.values()) {
            HttpResponse<String> response = requests.post(APP.getAdminPort(), task + "?pool=alpha");
            assertThat(response.statusCode()).as("%s, not listed in changeTasks", task).isEqualTo(404);
        }
        assertThat(PoolTasksApp.POOLS.get("alpha").isRunning()).isTrue();
    }

    @Test
    void tomcatMetricNamesNeedNoChangeTask() {
        Map<String, Object> values = new TreeMap<>();
        String prefix = TomcatMetricNames.PREFIX + ".alpha.";
        APP.getEnvironment().metrics().getGauges().forEach((name, gauge) -> {
            if (name.startsWith(prefix)) {
                values.put(name.substring(prefix.length()), ((Gauge<?>) gauge).getValue());
            }
        });

        assertThat(values.keySet()).containsExactlyInAnyOrderElementsOf(List.of("active", "idle", "waiting", "size",
            "created", "borrowed", "reconnected", "released", "releasedIdle", "returned", "removeAbandoned"));
        assertThat(APP.getEnvironment().metrics().getNames())
            .noneMatch(name -> name.startsWith(TomcatMetricNames.PREFIX + ".beta."));
    }
}
