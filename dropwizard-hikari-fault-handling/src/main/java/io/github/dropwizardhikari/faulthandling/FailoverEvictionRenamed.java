package io.github.dropwizardhikari.faulthandling;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.zaxxer.hikari.HikariConfig;
import io.dropwizard.validation.ValidationMethod;
import io.github.dropwizardhikari.PoolExtension;
import io.github.dropwizardhikari.PoolHooks;

/**
 * The type {@code failover-eviction}, an extension of its own before it became the {@code failoverEviction} setting
 * of {@code fault-handling}: a block that names it fails {@code check}, saying what to write instead.
 */
@JsonTypeName("failover-eviction")
final class FailoverEvictionRenamed implements PoolExtension {
    static final String INSTEAD = "the failover-eviction extension is now a setting of fault-handling: replace "
        + "'- type: failover-eviction' with '- type: fault-handling' and 'failoverEviction: true' (one entry per "
        + "block)";

    @JsonIgnore
    @ValidationMethod(message = INSTEAD)
    public boolean isRenamed() {
        return false;
    }

    @Override
    public PoolHooks attach(HikariConfig config, MetricRegistry metrics) {
        throw new IllegalStateException(INSTEAD);
    }
}
