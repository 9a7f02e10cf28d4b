package io.github.dropwizardhikari.dropin;

import com.zaxxer.hikari.HikariConfig;

/**
 * Every value that {@link HikariConfig#validate()} can change (HikariCP 7.1.0: its floors and cross checks on
 * the timeouts and sizes, blank strings to null, a generated pool name). Equal snapshots before and after
 * {@code validate()} mean HikariCP adjusted nothing behind the bundle's back.
 */
record AdjustableValues(String poolName, String jdbcUrl, String driverClassName, String dataSourceClassName,
                        String catalog, String connectionInitSql, String connectionTestQuery,
                        String transactionIsolation, long connectionTimeout, long validationTimeout,
                        long idleTimeout, long maxLifetime, long keepaliveTime, long leakDetectionThreshold,
                        int minimumIdle, int maximumPoolSize) {

    static AdjustableValues of(HikariConfig config) {
        return new AdjustableValues(config.getPoolName(), config.getJdbcUrl(), config.getDriverClassName(),
            config.getDataSourceClassName(), config.getCatalog(), config.getConnectionInitSql(),
            config.getConnectionTestQuery(), config.getTransactionIsolation(), config.getConnectionTimeout(),
            config.getValidationTimeout(), config.getIdleTimeout(), config.getMaxLifetime(),
            config.getKeepaliveTime(), config.getLeakDetectionThreshold(), config.getMinimumIdle(),
            config.getMaximumPoolSize());
    }

    /** The snapshot of the configuration after HikariCP validated a copy of it; the original is left alone. */
    static AdjustableValues afterValidation(HikariConfig config) {
        HikariConfig copy = new HikariConfig();
        config.copyStateTo(copy);
        copy.validate();
        return of(copy);
    }
}
