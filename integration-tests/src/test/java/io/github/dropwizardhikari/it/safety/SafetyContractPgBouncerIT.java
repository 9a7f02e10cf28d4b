package io.github.dropwizardhikari.it.safety;

import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.pgbouncer.PgBouncerStacks;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import io.github.dropwizardhikari.it.safety.Observation.Outcome;

import java.util.stream.Stream;

/**
 * The safety contract through PgBouncer in transaction mode, for this bundle's pool configured as the
 * PgBouncer block of docs/pgbouncer.md says ({@code prepareThreshold=0}). Every guarantee that HikariCP keeps on a
 * direct connection must hold through the pooler too; the observations are the {@code hikari via PgBouncer} column
 * of the matrix.
 */
class SafetyContractPgBouncerIT extends SafetyContractIT {
    @Override
    TestDatabase server() {
        return PgBouncerStacks.get().throughBouncer("postgres");
    }

    @Override
    TestDatabase isolated() {
        // PgBouncer refuses the search_path startup parameter that a schema in the URL sends: a database each
        return PgBouncerStacks.get().database("it_safety");
    }

    @Override
    TestDatabase administration(TestDatabase database) {
        // through PgBouncer, the killing query could run on the very server connection it kills
        return PgBouncerStacks.get().direct(database.databaseName());
    }

    @Override
    SafetyMatrix matrix(TestDatabase database) {
        return SafetyMatrix.viaPgBouncer();
    }

    @Override
    Stream<PoolConfiguration> pools() {
        return Stream.of(PoolConfiguration.HIKARI);
    }

    @Override
    Outcome expected(Guarantee guarantee, PoolConfiguration pool) {
        return ExpectedBehaviour.POSTGRES.get(guarantee, pool);
    }
}
