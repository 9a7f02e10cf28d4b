package io.github.dropwizardhikari.operations;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** An admin task that changes a running pool, registered only for the blocks that list it in {@code changeTasks:}. */
public enum ChangeTask {
    /** {@code pool-evict}: retires every connection. */
    POOL_EVICT,
    /** {@code pool-resize}: changes {@code maxSize} and {@code minSize} until restart. */
    POOL_RESIZE,
    /** {@code pool-suspend}: borrowers wait until {@code pool-resume}; listed with it. */
    POOL_SUSPEND,
    /** {@code pool-resume}: ends a suspension; listed with {@code pool-suspend}. */
    POOL_RESUME;

    @JsonCreator
    public static ChangeTask parse(String value) {
        for (ChangeTask task : values()) {
            if (task.toString().equalsIgnoreCase(value.trim())) {
                return task;
            }
        }
        throw new IllegalArgumentException("changeTasks takes "
            + Arrays.stream(values()).map(ChangeTask::toString).collect(Collectors.joining(", ")) + ", not '"
            + value + "' (pool-status is on without being listed)");
    }

    /** @return the task's name on the admin port, {@code pool-evict} for {@code POST /tasks/pool-evict} */
    @JsonValue
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
