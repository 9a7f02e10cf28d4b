package io.github.dropwizardhikari.dropin;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import io.github.dropwizardhikari.HikariDataSourceFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * A factory built in Java and never validated behaves as Dropwizard's {@code DataSourceFactory} does in the same
 * cases (the cases of Dropwizard's own factory tests): {@code build()} returns, and what cannot work fails as an
 * {@link SQLException} naming the field or the cause when the pool is used.
 */
class UnvalidatedFactoryTest {
    private final MetricRegistry metrics = new MetricRegistry();
    private ManagedDataSource dataSource;

    @AfterEach
    void stop() throws Exception {
        if (dataSource != null) {
            dataSource.stop();
        }
    }

    private static HikariDataSourceFactory h2() {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setUrl("jdbc:h2:mem:unvalidated-" + System.nanoTime() + ";user=sa");
        factory.setDriverClass("org.h2.Driver");
        factory.setValidationQuery("SELECT 1");
        return factory;
    }

    @Test
    void withoutADriverClassTheUrlFindsTheDriver() throws Exception {
        HikariDataSourceFactory factory = h2();
        factory.setDriverClass(null);
        dataSource = factory.build(metrics, "no-driver-class");

        assertThatNoException().isThrownBy(dataSource::start);
        try (Connection connection = dataSource.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }
    }

    @Test
    void initialSizeZeroStartsEvenWithAUrlNoDriverAccepts() throws Exception {
        HikariDataSourceFactory factory = h2();
        factory.setUrl("nonsense invalid url");
        factory.setInitialSize(0);
        factory.setMaxWaitForConnection(io.dropwizard.util.Duration.seconds(1));
        dataSource = factory.build(metrics, "nonsense-url");

        assertThatNoException().isThrownBy(dataSource::start);
        assertThatExceptionOfType(SQLException.class).isThrownBy(dataSource::getConnection);
    }

    @Test
    void aDriverClassThatDoesNotLoadFailsWhenThePoolIsUsed() throws Exception {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();
        factory.setDriverClass("org.example.no.driver.here");

        dataSource = factory.build(metrics, "no-driver");

        assertThatExceptionOfType(SQLException.class).isThrownBy(dataSource::getConnection)
            .withMessageContaining("Pool no-driver cannot start");
        assertThatExceptionOfType(SQLException.class).isThrownBy(dataSource::start);
    }

    @Test
    void aMissingUrlIsNamedWhenThePoolIsUsed() {
        HikariDataSourceFactory factory = new HikariDataSourceFactory();

        dataSource = factory.build(metrics, "no-url");

        assertThatExceptionOfType(SQLException.class).isThrownBy(dataSource::getConnection)
            .withMessageContaining("url must be set")
            .satisfies(e -> assertThat(e.getSQLState()).isEqualTo("08001"));
    }

    @Test
    void aDriverClassThatDoesNotLoadIsNamed() {
        HikariDataSourceFactory factory = h2();
        factory.setDriverClass("org.example.no.driver.here");

        dataSource = factory.build(metrics, "bad-driver");

        assertThatExceptionOfType(SQLException.class).isThrownBy(dataSource::getConnection)
            .withMessageContaining("org.example.no.driver.here");
    }
}
