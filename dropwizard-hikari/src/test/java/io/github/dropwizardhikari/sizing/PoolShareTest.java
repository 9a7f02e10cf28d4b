package io.github.dropwizardhikari.sizing;

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
    void throughPgBouncerTheClientLimitCounts() {
        PoolShare share = PoolShare.throughPgBouncer("db", 40, new PgBouncerLimit(100, 20, 0), POSTGRES);

        assertThat(share.warning()).isFalse();
        assertThat(share.message()).isEqualTo("Pool db: maxSize 40 is 40% of the 100 client connections PgBouncer "
            + "accepts (max_client_conn); it opens at most 20 server connections per database and user "
            + "(default_pool_size); PostgreSQL behind it accepts 97 (max_connections 100 minus 3 reserved)");
        assertThat(PoolShare.throughPgBouncer("db", 60, new PgBouncerLimit(100, 20, 30), null).warning()).isTrue();
    }

    @Test
    void anUnreadablePoolerIsSaidSo() {
        PoolShare share = PoolShare.throughUnknownPooler("db", 40, "permission denied", POSTGRES);

        assertThat(share.warning()).isFalse();
        assertThat(share.message()).contains("whose client limit cannot be read", "permission denied",
            "PostgreSQL behind it accepts 97");
    }
}
