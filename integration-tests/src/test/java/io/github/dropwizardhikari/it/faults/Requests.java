package io.github.dropwizardhikari.it.faults;

import io.dropwizard.db.ManagedDataSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** What the fault suites do to a pool: one request, and waiting for a condition. */
final class Requests {
    private Requests() {
    }

    /** @return whether one borrow and {@code SELECT 1} succeeded */
    static boolean selectOne(ManagedDataSource dataSource) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("SELECT 1")) {
            return result.next();
        } catch (SQLException e) {
            return false;
        }
    }

    /** @return how long it took until {@code condition} held, polled every 20 ms; fails after the timeout */
    static long await(String what, long timeoutMillis, BooleanSupplier condition) throws InterruptedException {
        long started = System.nanoTime();
        long deadline = started + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeoutMillis + " ms waiting until " + what);
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    }
}
