package io.github.dropwizardhikari.pool;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.util.function.IntConsumer;

/**
 * HikariCP's data source, reporting each runtime change of its maximum size.
 *
 * <p>HikariCP is its own {@code HikariConfigMXBean}: {@code getHikariConfigMXBean()} returns the data source, and
 * the JMX bean it registers is the same object, so this setter sees every resize, whichever way it comes.
 * HikariCP copies the configuration into the data source field by field, so building it calls no setter.</p>
 */
final class ResizeReportingHikariDataSource extends HikariDataSource {
    private final IntConsumer onResize;

    ResizeReportingHikariDataSource(HikariConfig config, IntConsumer onResize) {
        super(config);
        this.onResize = onResize;
    }

    @Override
    public void setMaximumPoolSize(int maxPoolSize) {
        super.setMaximumPoolSize(maxPoolSize);
        onResize.accept(maxPoolSize);
    }
}
