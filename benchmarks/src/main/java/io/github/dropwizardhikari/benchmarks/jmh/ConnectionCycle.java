package io.github.dropwizardhikari.benchmarks.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

/** {@code getConnection()} and {@code close()}, nothing else: the cost of the pool's borrow and return. */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class ConnectionCycle {
    @Benchmark
    public Connection cycle(Pools pools) throws SQLException {
        Connection connection = pools.dataSource.getConnection();
        connection.close();
        return connection;
    }
}
