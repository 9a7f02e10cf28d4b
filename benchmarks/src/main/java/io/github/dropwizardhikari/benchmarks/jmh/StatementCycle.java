package io.github.dropwizardhikari.benchmarks.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

/** Borrow, prepare, bind, execute, read the result, close everything: one small query through the pool. */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class StatementCycle {
    @Benchmark
    public int cycle(Pools pools) throws SQLException {
        try (Connection connection = pools.dataSource.getConnection();
             PreparedStatement statement = connection.prepareStatement("SELECT ?")) {
            statement.setInt(1, 42);
            int sum = 0;
            try (ResultSet result = statement.executeQuery()) {
                while (result.next()) {
                    sum += result.getInt(1);
                }
            }
            return sum;
        }
    }
}
