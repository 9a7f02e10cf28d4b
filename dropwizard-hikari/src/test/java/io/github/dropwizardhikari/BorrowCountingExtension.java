package io.github.dropwizardhikari;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.health.HealthCheck;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.zaxxer.hikari.HikariConfig;
import jakarta.validation.constraints.NotEmpty;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;

/**
 * The smallest whole extension, as CONTRIBUTING shows it: named {@code borrow-counting} in a block's
 * {@code extensions:}, it counts the pool's borrows in a counter of its own, adds a health check, and removes both
 * when the pool stops.
 */
@JsonTypeName("borrow-counting")
public class BorrowCountingExtension implements PoolExtension {
    @NotEmpty
    private String metric = "Borrows";

    public String getMetric() {
        return metric;
    }

    public void setMetric(String metric) {
        this.metric = metric;
    }

    @Override
    public PoolHooks attach(HikariConfig config, MetricRegistry metrics) {
        String name = MetricRegistry.name(config.getPoolName(), "pool", metric);
        Counter borrows = metrics.counter(name);
        return new PoolHooks() {
            @Override
            public Connection borrow(Borrow next) throws SQLException {
                Connection connection = next.get();
                borrows.inc();
                return connection;
            }

            @Override
            public Map<String, HealthCheck> healthChecks() {
                return Map.of(config.getPoolName() + ".pool.Borrowing", new HealthCheck() {
                    @Override
                    protected Result check() {
                        return Result.healthy("%d borrows", borrows.getCount());
                    }
                });
            }

            @Override
            public void stopped() {
                metrics.remove(name);
            }
        };
    }
}
