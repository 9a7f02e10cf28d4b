package io.github.dropwizardhikari.operations;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PoolShareTest {
    private static final ServerLimit POSTGRES = new ServerLimit("PostgreSQL", 97, "max_connections 100 minus 3 "
        + "reserved");

    @Test
    void aSmallPoolIsOneInfoLineWithItsShare() {
        PoolShare share = PoolShare.direct("db", 10, POSTGRES);

        assertThat(share.warning()).isFalse();
        assertThat(share.message()).isEqualTo("Pool db: maxSize 10 is 10% of the 97 connections PostgreSQL accepts "
            + "(max_connections 100 minus 3 reserved); 9 pools of this size fill it");
    }

    @Test
    void exactlyHalfIsStillInfo() {
        assertThat(PoolShare.direct("db", 50, new ServerLimit("MariaDB", 100, "max_connections 100")).warning())
            .isFalse();
    }

    @Test
    void moreThanHalfWarnsWithAdvice() {
        PoolShare share = PoolShare.direct("db", 49, POSTGRES);

        assertThat(share.warning()).isTrue();
        assertThat(share.message()).startsWith("Pool db: maxSize 49 is 51% of the 97 connections")
            .contains("a second instance of this application would run the server out of connections")
            .endsWith(PoolShare.POOLER_ADVICE);
    }

    @Test
    void throughAPoolerItSaysThePoolersLimitCannotBeRead() {
        PoolShare share = PoolShare.throughPooler("db", 40, POSTGRES);

        assertThat(share.warning()).isFalse();
        assertThat(share.message()).isEqualTo("Pool db: maxSize 40 goes through a transaction pooler (pooler: "
            + "transaction), whose client limit the bundle cannot read: PgBouncer shows max_client_conn only on its "
            + "admin console, which PostgreSQL's JDBC driver cannot use; check that it exceeds the sum of every "
            + "instance's maxSize. PostgreSQL behind it accepts 97 (max_connections 100 minus 3 reserved), shared "
            + "by the pooler's server connections, not by this pool's");
    }
}
