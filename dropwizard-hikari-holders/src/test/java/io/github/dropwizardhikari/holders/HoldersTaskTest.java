package io.github.dropwizardhikari.holders;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** What {@code pool-holders} refuses, with the status and the reason its filter answers, on H2 pools. */
class HoldersTaskTest {
    private final HolderPools pools = new HolderPools();
    private final HoldersTask task = new HoldersTask();

    HoldersTaskTest() {
        task.add(pools.extension);
    }

    @AfterEach
    void close() {
        pools.close();
    }

    @Test
    void beforeAnyPoolHasStartedItIsA409() {
        HoldersTask.Refusal refusal = refusal(Map.of());

        assertThat(refusal.status()).isEqualTo(409);
        assertThat(refusal).hasMessage("no pool of a block that names the holders extension has started yet (a pool "
            + "starts on first use)");
    }

    @Test
    void withSeveralPoolsAMissingOrBlankPoolIsA400ListingThem() throws Exception {
        pools.build("task-alpha", 1, 1_000);
        pools.build("task-beta", 1, 1_000);

        for (Map<String, List<String>> parameters : List.of(Map.<String, List<String>>of(),
            Map.of("pool", List.of(" ")))) {
            HoldersTask.Refusal refusal = refusal(parameters);
            assertThat(refusal.status()).as("%s", parameters).isEqualTo(400);
            assertThat(refusal).as("%s", parameters).hasMessage("this application has several pools (task-alpha, "
                + "task-beta); name one with pool=<name>");
        }
        assertThat(task.check(Map.of("pool", List.of("task-beta"))).holds().poolName()).isEqualTo("task-beta");
    }

    @Test
    void anUnknownPoolIsA400ListingThePools() throws Exception {
        assertThat(refusal(Map.of("pool", List.of("gamma")))).satisfies(refusal -> {
            assertThat(refusal.status()).isEqualTo(400);
            assertThat(refusal).hasMessage("no pool named 'gamma'; the pools are: none yet");
        });
        pools.build("task-alpha", 1, 1_000);

        assertThat(refusal(Map.of("pool", List.of("gamma")))).satisfies(refusal -> {
            assertThat(refusal.status()).isEqualTo(400);
            assertThat(refusal).hasMessage("no pool named 'gamma'; the pools are: task-alpha");
        });
    }

    @Test
    void anUnknownParameterIsA400NamingIt() throws Exception {
        pools.build("task-alpha", 1, 1_000);

        HoldersTask.Refusal refusal = refusal(Map.of("pool", List.of("task-alpha"), "sql", List.of("true")));

        assertThat(refusal.status()).isEqualTo(400);
        assertThat(refusal).hasMessage("pool-holders takes no parameter 'sql'; it takes pool, stack");
    }

    @Test
    void aParameterGivenTwiceIsA400NamingIt() throws Exception {
        pools.build("task-alpha", 1, 1_000);

        for (String parameter : List.of("pool", "stack")) {
            HoldersTask.Refusal refusal = refusal(Map.of(parameter, List.of("task-alpha", "true")));
            assertThat(refusal.status()).as(parameter).isEqualTo(400);
            assertThat(refusal).as(parameter).hasMessage(parameter + " was given 2 times; give it once");
        }
    }

    @Test
    void stackTakesTrueOrFalse() throws Exception {
        pools.build("task-alpha", 1, 1_000);

        HoldersTask.Refusal refusal = refusal(Map.of("stack", List.of("yes")));

        assertThat(refusal.status()).isEqualTo(400);
        assertThat(refusal).hasMessage("stack must be true or false; got 'yes'");
        assertThat(task.check(Map.of("stack", List.of("TRUE"))).stacks()).isTrue();
        assertThat(task.check(Map.of("stack", List.of("false"))).stacks()).isFalse();
        assertThat(task.check(Map.of("stack", List.of(""))).stacks()).isFalse();
        assertThat(task.check(Map.of()).stacks()).isFalse();
    }

    private HoldersTask.Refusal refusal(Map<String, List<String>> parameters) {
        HoldersTask.Refusal refusal = catchThrowableOfType(HoldersTask.Refusal.class, () -> task.check(parameters));
        assertThat(refusal).as("refused: %s", parameters).isNotNull();
        return refusal;
    }
}
