package io.github.dropwizardhikari.it.borrow;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.util.Duration;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import io.github.dropwizardhikari.ManagedHikariDataSource;
import io.github.dropwizardhikari.fairborrowing.FairBorrowing;
import io.github.dropwizardhikari.it.db.TestDatabase;
import io.github.dropwizardhikari.it.db.TestDatabases;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.postgres.PgLobApi;
import org.jdbi.v3.postgres.PostgresPlugin;
import org.jdbi.v3.postgres.PostgresTypes;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLTransientConnectionException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Connections borrowed through the fair-borrowing extension on real PostgreSQL, through Jdbi's PostgreSQL plugin. */
class FairBorrowingPostgresIT {
    private final MetricRegistry metrics = new MetricRegistry();
    private ManagedHikariDataSource dataSource;

    private ManagedHikariDataSource fairPool() throws Exception {
        TestDatabase database = TestDatabases.postgres();
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl(database.url());
        factory.setUser(database.user());
        factory.setPassword(database.password());
        factory.setMaxSize(2);
        factory.setMaxWaitForConnection(Duration.seconds(1));
        factory.setExtensions(List.of(new FairBorrowing()));
        dataSource = (ManagedHikariDataSource) factory.build(metrics, "fair-pg");
        dataSource.start();
        return dataSource;
    }

    @AfterEach
    void stop() {
        if (dataSource != null) {
            dataSource.stop();
        }
    }

    @Test
    void jdbisLargeObjectApiUnwrapsTheBorrowedConnectionToPgConnection() throws Exception {
        ManagedHikariDataSource pool = fairPool();
        Jdbi jdbi = Jdbi.create(pool).installPlugin(new PostgresPlugin());
        byte[] content = "a large object, through the gate".getBytes(StandardCharsets.UTF_8);

        byte[] readBack = jdbi.inTransaction(handle -> {
            assertThat(handle.getConnection().isWrapperFor(PGConnection.class)).isTrue();
            // the plugin's large-object API takes the driver's connection with unwrap(PGConnection.class)
            PgLobApi lobs = handle.getConfig(PostgresTypes.class).getLobApi();
            long oid = lobs.createLob();
            lobs.writeLob(oid, new ByteArrayInputStream(content));
            byte[] bytes;
            try (InputStream in = lobs.readLob(oid)) {
                bytes = in.readAllBytes();
            }
            lobs.deleteLob(oid);
            return bytes;
        });

        assertThat(readBack).isEqualTo(content);
        assertBothPlacesAreBack(pool);
        try (Connection connection = pool.getConnection()) {
            assertThat(connection.unwrap(PGConnection.class).getBackendPID()).isPositive();
        }
        assertBothPlacesAreBack(pool);
    }

    /** Both connections at once through the gate, then a refusal at it: every place came back, none was added. */
    private void assertBothPlacesAreBack(ManagedHikariDataSource pool) throws Exception {
        try (Connection first = pool.getConnection(); Connection second = pool.getConnection()) {
            assertThat(first.isValid(1)).isTrue();
            assertThat(second.isValid(1)).isTrue();
            assertThatThrownBy(pool::getConnection).isInstanceOf(SQLTransientConnectionException.class);
        }
        assertThat(metrics.getGauges().get("fair-pg.pool.GateWaiting").getValue()).isEqualTo(0);
    }
}
