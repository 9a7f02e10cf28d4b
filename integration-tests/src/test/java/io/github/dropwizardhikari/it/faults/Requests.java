package io.github.dropwizardhikari.it.faults;

import com.zaxxer.hikari.HikariDataSource;
import io.dropwizard.db.ManagedDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/** What the fault suites do to a pool: one request, request loops, opening every connection, and waiting. */
final class Requests {
    private Requests() {
    }

    /** @return whether one borrow and {@code SELECT 1} succeeded */
    static boolean selectOne(ManagedDataSource dataSource) {
        return answers(dataSource, "SELECT 1");
    }

    /** @return whether one borrow and {@code query}, which returns a row, succeeded */
    static boolean answers(ManagedDataSource dataSource, String query) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery(query)) {
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

    /**
     * Borrows {@code size} connections at once, or as many as the pool lends when that is fewer (fault-handling's
     * session check keeps one of {@code maxSize} on PostgreSQL and MariaDB), and gives them back: the pool then has
     * that many open.
     */
    static void openAll(ManagedDataSource dataSource, int size) throws SQLException {
        List<Connection> held = new ArrayList<>();
        int lent = lends(dataSource, size);
        try {
            for (int i = 0; i < lent; i++) {
                held.add(dataSource.getConnection());
            }
        } finally {
            for (Connection connection : held) {
                connection.close();
            }
        }
    }

    /**
     * @return {@code size}, or what the pool lends when that is fewer: fault-handling's session check keeps one
     * connection of {@code maxSize} on PostgreSQL and MariaDB
     */
    static int lends(ManagedDataSource dataSource, int size) throws SQLException {
        return dataSource.isWrapperFor(HikariDataSource.class)
            ? Math.min(size, dataSource.unwrap(HikariDataSource.class).getMaximumPoolSize()) : size;
    }

    /** Request loops, each sending {@link #selectOne} again as soon as the last one answered, counting outcomes. */
    static final class Loops implements AutoCloseable {
        private final ExecutorService threads;
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicInteger served = new AtomicInteger();
        private final AtomicInteger failures = new AtomicInteger();

        Loops(ManagedDataSource dataSource, int count) {
            this(dataSource, count, "SELECT 1");
        }

        /** @param query what each request runs on its connection (one that returns a row) */
        Loops(ManagedDataSource dataSource, int count, String query) {
            threads = Executors.newFixedThreadPool(count);
            for (int i = 0; i < count; i++) {
                threads.execute(() -> {
                    while (running.get()) {
                        (answers(dataSource, query) ? served : failures).incrementAndGet();
                    }
                });
            }
        }

        int served() {
            return served.get();
        }

        int failures() {
            return failures.get();
        }

        /** Stops the loops after their current request; fails when one does not end within 20 s. */
        void stop() throws InterruptedException {
            running.set(false);
            threads.shutdown();
            if (!threads.awaitTermination(20, TimeUnit.SECONDS)) {
                throw new AssertionError("request loops still running 20 s after being stopped");
            }
        }

        @Override
        public void close() {
            running.set(false);
            threads.shutdownNow();
        }
    }

    /**
     * Exhausts {@code dataSource} with twice {@code maxSize} request loops, each holding its connection for
     * {@code holdQuery}, and counts the server's sessions with {@code count} every 50 ms for 6 s.
     *
     * @return the most sessions counted at once
     */
    static int mostSessionsWhileExhausted(ManagedDataSource dataSource, int maxSize, String holdQuery,
        PreparedStatement count) throws Exception {
        // the pool is exhausted: waiting borrowers time out, as the load means
        Loops borrowers = new Loops(dataSource, 2 * maxSize, holdQuery);
        int most = 0;
        try {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(6);
            while (System.nanoTime() < until) {
                try (ResultSet row = count.executeQuery()) {
                    row.next();
                    most = Math.max(most, row.getInt(1));
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
            return most;
        } finally {
            borrowers.stop();
        }
    }
}
