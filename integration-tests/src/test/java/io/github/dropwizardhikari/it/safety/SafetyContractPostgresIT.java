package io.github.dropwizardhikari.it.safety;

import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import io.github.dropwizardhikari.it.safety.Observation.Outcome;

class SafetyContractPostgresIT extends SafetyContractIT {
    @Override
    TestDatabase server() {
        return TestDatabases.postgres();
    }

    @Override
    Outcome expected(Guarantee guarantee, PoolConfiguration pool) {
        return ExpectedBehaviour.POSTGRES.get(guarantee, pool);
    }
}
