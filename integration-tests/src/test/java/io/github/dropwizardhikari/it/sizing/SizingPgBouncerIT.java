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
import io.github.dropwizardhikari.operations.OperationsExtension;
import io.github.dropwizardhikari.operations.PoolerMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sizing line of a pool behind PgBouncer: declared with {@code pooler: transaction}, it says the pooler's own
 * limit cannot be read and gives the server's; undeclared, it reports the server's limit that PgBouncer passes
 * through, as docs/pgbouncer.md warns.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SizingPgBouncerIT {
    // PostgreSQL keeps 3 of its connections for superusers by default
    private static final int SERVER_LIMIT = PgBouncerStack.SERVER_MAX_CONNECTIONS - 3;

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

    private ManagedDataSource start(String name, PoolerMode pooler) throws Exception {
        HikariDataSourceFactory factory = PoolConfiguration.hikari(database, 4, Duration.seconds(2));
        factory.setMinSize(1);
        OperationsExtension operations = new OperationsExtension();
        operations.setPooler(pooler);
        factory.setExtensions(List.of(operations));
        ManagedDataSource dataSource = factory.build(new MetricRegistry(), name);
        dataSource.start();
        return dataSource;
    }

    @Test
    void aDeclaredPoolerIsSaidToHideItsLimit() throws Exception {
        ManagedDataSource dataSource = start("sizing-bouncer", PoolerMode.TRANSACTION);
        try {
            ILoggingEvent line = log.await("sizing-bouncer");

            assertThat(line.getLevel()).isEqualTo(Level.INFO);
            assertThat(line.getFormattedMessage()).isEqualTo("Pool sizing-bouncer: maxSize 4 goes through a "
                + "transaction pooler (pooler: transaction), whose client limit the bundle cannot read: PgBouncer "
                + "shows max_client_conn only on its admin console, which PostgreSQL's JDBC driver cannot use; check "
                + "that it exceeds the sum of every instance's maxSize. PostgreSQL behind it accepts "
                + SERVER_LIMIT + " (max_connections " + PgBouncerStack.SERVER_MAX_CONNECTIONS + " minus 3 reserved), "
                + "shared by the pooler's server connections, not by this pool's");
        } finally {
            dataSource.stop();
        }
    }

    @Test
    void anUndeclaredPoolerPassesTheServersLimitThrough() throws Exception {
        ManagedDataSource dataSource = start("sizing-undeclared", PoolerMode.NONE);
        try {
            ILoggingEvent line = log.await("sizing-undeclared");

            // PgBouncer forwards the query: without pooler: transaction the line reads as if the pool were direct
            assertThat(line.getFormattedMessage()).startsWith("Pool sizing-undeclared: maxSize 4 is 7% of the "
                + SERVER_LIMIT + " connections PostgreSQL accepts");
        } finally {
            dataSource.stop();
        }
    }
}
