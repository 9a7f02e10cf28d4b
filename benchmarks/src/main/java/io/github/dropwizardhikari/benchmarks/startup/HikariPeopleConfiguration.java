package io.github.dropwizardhikari.benchmarks.startup;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

/**
 * {@link TomcatPeopleConfiguration} after the type swap: the field's type is the only change.
 */
public class HikariPeopleConfiguration extends Configuration {
    @Valid
    @NotNull
    private HikariDataSourceFactory database = new HikariDataSourceFactory();

    @JsonProperty("database")
    public HikariDataSourceFactory getDataSourceFactory() {
        return database;
    }

    @JsonProperty("database")
    public void setDataSourceFactory(HikariDataSourceFactory factory) {
        this.database = factory;
    }
}
