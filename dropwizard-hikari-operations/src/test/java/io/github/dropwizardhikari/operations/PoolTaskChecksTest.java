package io.github.dropwizardhikari.operations;

import io.dropwizard.core.Application;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.testing.ResourceHelpers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.http.HttpResponse;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A pool task checks each request once: the refusals filter checks it, and the task servlet runs what the filter
 * checked. The application's pool lookup counts how often a check asks for the pools.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class PoolTaskChecksTest {
    /** One started pool, {@code alpha}, behind tasks whose pool lookup counts its calls. */
    public static class CountingLookupApp extends Application<PoolTasksApp.Config> {
        final AtomicInteger lookups = new AtomicInteger();

        @Override
        public void run(PoolTasksApp.Config configuration, Environment environment) {
            ManagedHikariDataSource alpha = (ManagedHikariDataSource) configuration.alpha.build(
                environment.metrics(), "alpha");
            environment.lifecycle().manage(alpha);
            PoolTask.register(environment, () -> {
                lookups.incrementAndGet();
                return List.of(alpha);
            }, EnumSet.allOf(ChangeTask.class));
        }
    }

    static final DropwizardAppExtension<PoolTasksApp.Config> APP = new DropwizardAppExtension<>(
        CountingLookupApp.class, ResourceHelpers.resourceFilePath("pool-tasks-app.yml"));

    private final AdminRequests requests = new AdminRequests();

    private AtomicInteger lookups() {
        return ((CountingLookupApp) APP.getApplication()).lookups;
    }

    @BeforeEach
    void resetCount() {
        lookups().set(0);
    }

    private HttpResponse<String> post(String pathAndQuery) throws Exception {
        return requests.post(APP.getAdminPort(), pathAndQuery);
    }

    @Test
    void anAcceptedRequestIsCheckedOnce() throws Exception {
        HttpResponse<String> status = post("pool-status");

        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.body()).contains("pool: alpha\n", "state: running\n");
        assertThat(lookups()).hasValue(1);
    }

    @Test
    void eachRequestIsCheckedOnceAndOnlyItsOwnCheckRuns() throws Exception {
        assertThat(post("pool-resize?maxSize=3&minSize=1").statusCode()).isEqualTo(200);
        assertThat(post("pool-resize?maxSize=4&minSize=4").body()).contains("maxSize 3 -> 4, minSize 1 -> 4");

        assertThat(lookups()).hasValue(2);
    }

    @Test
    void aRefusedRequestIsCheckedOnceAndKeepsItsStatusAndMessage() throws Exception {
        HttpResponse<String> refused = post("pool-evict?pool=gamma");

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("no pool named 'gamma'; the pools are: alpha");
        assertThat(lookups()).hasValue(1);
    }
}
