package io.github.dropwizardhikari.example;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.Min;

/**
 * Whether the application migrates its schema and generates a data set when it starts: the embedded default
 * does, so that it answers at once; the PostgreSQL configurations leave that to {@code db migrate} and
 * {@code load-questions}.
 */
public class SeedConfiguration {
    private boolean migrateOnStart = false;

    @Min(0)
    private long rows = 0;

    @Min(1)
    private int owners = 1_000;

    private long randomSeed = 42;

    @JsonProperty
    public boolean isMigrateOnStart() {
        return migrateOnStart;
    }

    @JsonProperty
    public void setMigrateOnStart(boolean migrateOnStart) {
        this.migrateOnStart = migrateOnStart;
    }

    /** @return how many questions to generate when the table is empty at start; 0 for none */
    @JsonProperty
    public long getRows() {
        return rows;
    }

    @JsonProperty
    public void setRows(long rows) {
        this.rows = rows;
    }

    @JsonProperty
    public int getOwners() {
        return owners;
    }

    @JsonProperty
    public void setOwners(int owners) {
        this.owners = owners;
    }

    @JsonProperty
    public long getRandomSeed() {
        return randomSeed;
    }

    @JsonProperty
    public void setRandomSeed(long randomSeed) {
        this.randomSeed = randomSeed;
    }
}
