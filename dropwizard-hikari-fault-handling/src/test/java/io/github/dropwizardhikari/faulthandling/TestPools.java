package io.github.dropwizardhikari.faulthandling;

import io.dropwizard.core.Configuration;
import io.dropwizard.core.setup.Environment;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariBundle;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import io.github.dropwizardhikari.PoolExtension;

import java.util.List;

/** Pools as an application builds them: a factory, the bundle run with an environment, the extensions named. */
final class TestPools {
    private TestPools() {
    }

    /** A factory for the outage driver's database {@code name}: a pool of two, borrowers wait a second. */
    static HikariDataSourceFactory outageFactory(String name, PoolExtension... extensions) {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setDriverClass(OutageDriver.class.getName());
        factory.setUrl(OutageDriver.url(name));
        factory.setMinSize(2);
        factory.setMaxSize(2);
        factory.setMaxWaitForConnection(Duration.seconds(1));
        factory.setExtensions(List.of(extensions));
        return factory;
    }

    static FaultHandlingExtension faultHandling(long recoveryProbeIntervalMillis) {
        FaultHandlingExtension extension = new FaultHandlingExtension();
        extension.setRecoveryProbeInterval(Duration.milliseconds(recoveryProbeIntervalMillis));
        return extension;
    }

    /** Builds the pool {@code name} after the bundle has run, so its health checks go to the environment's. */
    static ManagedHikariDataSource build(HikariDataSourceFactory factory, Environment environment, String name) {
        new HikariBundle<Configuration>() {
            @Override
            public HikariDataSourceFactory getDataSourceFactory(Configuration configuration) {
                return factory;
            }
        }.run(new Configuration(), environment);
        return (ManagedHikariDataSource) factory.build(environment.metrics(), name);
    }
}
