package io.github.dropwizardhikari.operations;

import io.dropwizard.configuration.ConfigurationException;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import org.junit.jupiter.api.Test;

import static io.github.dropwizardhikari.operations.FactoryFixtures.operations;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The extension's settings as a user writes them: every default, every field, and the refusals. */
class OperationsConfigurationTest {
    @Test
    void minimalConfigurationHasEveryDefault() throws Exception {
        OperationsExtension operations = operations(FactoryFixtures.parse("operations_minimal.yml"));

        assertThat(operations.isAdminTasks()).isTrue();
        assertThat(operations.getChangeTasks()).as("no task that changes a pool unless listed").isEmpty();
        assertThat(operations.isSizingLog()).isTrue();
        assertThat(operations.getPooler()).isEqualTo(PoolerMode.NONE);
        assertThat(operations.isTomcatMetricNames()).isFalse();
    }

    @Test
    void fullConfigurationSetsEveryField() throws Exception {
        HikariDataSourceFactory factory = FactoryFixtures.parse("operations_full.yml");
        OperationsExtension operations = operations(factory);

        assertThat(factory.getExtensions()).hasSize(1);
        assertThat(operations.isAdminTasks()).isFalse();
        assertThat(operations.isSizingLog()).isFalse();
        assertThat(operations.getPooler()).isEqualTo(PoolerMode.TRANSACTION);
        assertThat(operations.isTomcatMetricNames()).isTrue();
    }

    @Test
    void changeTasksListsTheTasksThatChangeAPool() throws Exception {
        OperationsExtension operations = operations(FactoryFixtures.parse("operations_change_tasks.yml"));

        assertThat(operations.getChangeTasks()).containsExactlyInAnyOrder(ChangeTask.values());
        assertThat(operations.getChangeTasks()).extracting(ChangeTask::toString)
            .containsExactlyInAnyOrder("pool-evict", "pool-resize", "pool-suspend", "pool-resume");
    }

    @Test
    void anUnknownChangeTaskIsRefusedWithTheTasksItTakes() {
        assertThatThrownBy(() -> FactoryFixtures.parse("invalid_change_task.yml"))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining("changeTasks takes pool-evict, pool-resize, pool-suspend, pool-resume, not "
                + "'pool-restart'");
    }

    @Test
    void suspendWithoutResumeIsRefused() {
        assertThatThrownBy(() -> FactoryFixtures.parse("invalid_suspend_alone.yml"))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining("changeTasks lists pool-suspend and pool-resume together");
    }

    @Test
    void changeTasksWithTheTasksOffIsRefused() {
        assertThatThrownBy(() -> FactoryFixtures.parse("invalid_change_tasks_off.yml"))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining("changeTasks needs adminTasks: true");
    }

    @Test
    void anUnknownPoolerIsRefusedWithTheValuesItTakes() {
        assertThatThrownBy(() -> FactoryFixtures.parse("invalid_pooler.yml"))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining("pooler must be one of none, transaction, not 'statement'");
    }

    @Test
    void aMisspelledSettingIsRefused() {
        assertThatThrownBy(() -> FactoryFixtures.parse("invalid_operations_key.yml"))
            .isInstanceOf(ConfigurationException.class)
            .hasMessageContaining("sizinglog");
    }
}
