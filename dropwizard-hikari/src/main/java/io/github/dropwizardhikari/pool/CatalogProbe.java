package io.github.dropwizardhikari.pool;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.util.DriverDataSource;
import com.zaxxer.hikari.util.PropertyElf;
import com.zaxxer.hikari.util.UtilityElf;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

/**
 * Finds the catalog a new connection starts in, so the pool can put it back.
 *
 * <p>HikariCP resets a catalog that a borrower changed only to a configured {@code catalog}; with none
 * configured, the next borrower inherits the change (MariaDB and MySQL, where the catalog is the current
 * database). Asking one connection, made the way HikariCP makes them, before the pool starts gives the pool the
 * driver's default to reset to.</p>
 */
final class CatalogProbe {
    private static final Logger LOGGER = LoggerFactory.getLogger(CatalogProbe.class);

    private CatalogProbe() {
    }

    /** Sets the config's catalog to the driver's default when none is configured. */
    static void adoptDefaultCatalog(HikariConfig config) {
        if (config.getCatalog() != null || config.getDataSource() != null) {
            return;
        }
        try (Connection connection = connect(config)) {
            String catalog = connection.getCatalog();
            if (catalog != null && !catalog.isEmpty()) {
                config.setCatalog(catalog);
            }
        } catch (SQLException | RuntimeException e) {
            // the pool's own start reports an unreachable database, with HikariCP's timeouts
            LOGGER.debug("Pool {}: could not read the default catalog", config.getPoolName(), e);
        }
    }

    /** A connection of its own, made the way HikariCP makes them, with a bounded login. */
    static Connection connect(HikariConfig config) throws SQLException {
        DataSource dataSource = dataSource(config);
        // bounded like HikariCP's own attempts, so an unresponsive database cannot hang the start
        dataSource.setLoginTimeout((int) Math.max(1, TimeUnit.MILLISECONDS.toSeconds(config.getConnectionTimeout())));
        return dataSource.getConnection();
    }

    private static DataSource dataSource(HikariConfig config) {
        String className = config.getDataSourceClassName();
        if (className != null) {
            DataSource dataSource = UtilityElf.createInstance(className, DataSource.class);
            PropertyElf.setTargetFromProperties(dataSource, config.getDataSourceProperties());
            return dataSource;
        }
        return new DriverDataSource(config.getJdbcUrl(), config.getDriverClassName(),
            config.getDataSourceProperties(), nullIfEmpty(config.getUsername()), nullIfEmpty(config.getPassword()));
    }

    @Nullable
    private static String nullIfEmpty(@Nullable String value) {
        return value == null || value.isEmpty() ? null : value;
    }
}
