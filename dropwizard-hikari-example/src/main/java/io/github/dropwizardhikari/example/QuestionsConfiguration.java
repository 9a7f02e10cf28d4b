package io.github.dropwizardhikari.example;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;
import io.dropwizard.db.DataSourceFactory;
import io.dropwizard.db.PooledDataSourceFactory;
import io.dropwizard.validation.ValidationMethod;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.jspecify.annotations.Nullable;

/**
 * The questions API's configuration: exactly one pool, either HikariCP ({@code hikari:}) or Dropwizard's Tomcat
 * pool ({@code database:}), so the same application runs in every configuration the benchmarks compare.
 */
public class QuestionsConfiguration extends Configuration {
    /** The pool's name: the prefix of its metrics and health checks. */
    public static final String POOL_NAME = "questions";

    @Valid
    @Nullable
    private HikariDataSourceFactory hikari;

    @Valid
    @Nullable
    private DataSourceFactory database;

    @Valid
    @NotNull
    private SeedConfiguration seed = new SeedConfiguration();

    @Min(1)
    @Max(100_000)
    private int maxLimit = 10_000;

    @Min(1)
    @Max(1_000)
    private int maxUsersPerRequest = 100;

    @JsonProperty
    @Nullable
    public HikariDataSourceFactory getHikari() {
        return hikari;
    }

    @JsonProperty
    public void setHikari(@Nullable HikariDataSourceFactory hikari) {
        this.hikari = hikari;
    }

    @JsonProperty
    @Nullable
    public DataSourceFactory getDatabase() {
        return database;
    }

    @JsonProperty
    public void setDatabase(@Nullable DataSourceFactory database) {
        this.database = database;
    }

    @JsonProperty
    public SeedConfiguration getSeed() {
        return seed;
    }

    @JsonProperty
    public void setSeed(SeedConfiguration seed) {
        this.seed = seed;
    }

    /** @return the largest {@code limit} the large select accepts */
    @JsonProperty
    public int getMaxLimit() {
        return maxLimit;
    }

    @JsonProperty
    public void setMaxLimit(int maxLimit) {
        this.maxLimit = maxLimit;
    }

    /** @return the most owners one "many small selects" request may ask for */
    @JsonProperty
    public int getMaxUsersPerRequest() {
        return maxUsersPerRequest;
    }

    @JsonProperty
    public void setMaxUsersPerRequest(int maxUsersPerRequest) {
        this.maxUsersPerRequest = maxUsersPerRequest;
    }

    @JsonIgnore
    @ValidationMethod(message = "exactly one of hikari (HikariCP) and database (Tomcat) must be configured")
    public boolean isExactlyOnePoolConfigured() {
        return (hikari == null) != (database == null);
    }

    /** @return whichever pool is configured */
    @JsonIgnore
    public PooledDataSourceFactory getDataSourceFactory() {
        if (hikari != null) {
            return hikari;
        }
        if (database != null) {
            return database;
        }
        throw new IllegalStateException("no pool is configured");
    }
}
