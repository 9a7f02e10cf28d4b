package io.github.dropwizardhikari.it.sizing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.pgbouncer.PgBouncerStack;
import io.github.dropwizardhikari.it.pgbouncer.PgBouncerStacks;
import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import io.github.dropwizardhikari.pooler.PoolerMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sizing line of a pool declared to sit behind a transaction pooler: PgBouncer's own client limit when its
 * admin console answers this pool's user, and a plain statement that it cannot tell when it does not.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SizingPgBouncerIT {
    private PgBouncerStack stack;
    private TestDatabase database;
    private SizingLog log;

    @BeforeAll
    void prepare() {
        stack = PgBouncerStacks.get();
        database = stack.database("it_sizing");
    }

    @BeforeEach
    void capture() {
        log = new SizingLog();
    }

    @AfterEach
    void release() {
        log.close();
    }

    private ManagedDataSource start(String name, String user) throws Exception {
        TestDatabase asUser = new TestDatabase(database.kind(), database.url(), user, "", database.source());
        HikariDataSourceFactory factory = PoolConfiguration.hikari(asUser, 4, Duration.seconds(2));
        factory.setMinSize(1);
        factory.setPooler(PoolerMode.TRANSACTION);
        ManagedDataSource dataSource = factory.build(new MetricRegistry(), name);
        dataSource.start();
        return dataSource;
    }

    @Test
    void anAdminUserGetsPgBouncersOwnLimit() throws Exception {
        ManagedDataSource dataSource = start("sizing-bouncer-admin", PgBouncerStack.ADMIN_USER);
        try {
            ILoggingEvent line = log.await("sizing-bouncer-admin");

            int server = PgBouncerStack.SERVER_MAX_CONNECTIONS - 3;
            assertThat(line.getLevel()).isEqualTo(Level.INFO);
            assertThat(line.getFormattedMessage()).isEqualTo("Pool sizing-bouncer-admin: maxSize 4 is 2% of the "
                + PgBouncerStack.BOUNCER_MAX_CLIENT_CONNECTIONS + " client connections PgBouncer accepts "
                + "(max_client_conn); it opens at most " + PgBouncerStack.BOUNCER_POOL_SIZE + " server connections "
                + "per database and user (default_pool_size); PostgreSQL behind it accepts " + server
                + " (max_connections " + PgBouncerStack.SERVER_MAX_CONNECTIONS + " minus 3 reserved)");
        } finally {
            dataSource.stop();
        }
    }

    @Test
    void anOrdinaryUserIsToldTheLimitCannotBeRead() throws Exception {
        ManagedDataSource dataSource = start("sizing-bouncer-app", PgBouncerStack.APP_USER);
        try {
            ILoggingEvent line = log.await("sizing-bouncer-app");

            assertThat(line.getLevel()).isEqualTo(Level.INFO);
            assertThat(line.getFormattedMessage()).startsWith("Pool sizing-bouncer-app: maxSize 4 goes through a "
                + "transaction pooler whose client limit cannot be read (PgBouncer shows it only on its admin "
                + "console, database pgbouncer, to users in admin_users or stats_users: ")
                .endsWith("; PostgreSQL behind it accepts " + (PgBouncerStack.SERVER_MAX_CONNECTIONS - 3)
                    + " (max_connections " + PgBouncerStack.SERVER_MAX_CONNECTIONS + " minus 3 reserved); the "
                    + "pooler's server connections, not this pool's, count against that");
        } finally {
            dataSource.stop();
        }
    }
}
