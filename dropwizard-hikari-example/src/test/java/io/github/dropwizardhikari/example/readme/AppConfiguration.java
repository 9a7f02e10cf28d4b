package io.github.dropwizardhikari.example.readme;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.core.Configuration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;

public class AppConfiguration extends Configuration {
    @Valid
    @NotNull
    private HikariDataSourceFactory database = new HikariDataSourceFactory(); // was: DataSourceFactory

    @JsonProperty("database")
    public HikariDataSourceFactory getDataSourceFactory() {
        return database;
    }

    @JsonProperty("database")
    public void setDataSourceFactory(HikariDataSourceFactory factory) {
        this.database = factory;
    }
}
