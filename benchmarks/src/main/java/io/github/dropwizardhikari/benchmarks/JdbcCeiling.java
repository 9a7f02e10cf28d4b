package io.github.dropwizardhikari.benchmarks;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The ceiling of the HTTP benchmark: the questions query issued straight over JDBC by N threads, each on its own
 * connection, with no HTTP and no pool. Prints one CSV line: threads, seconds, queries, queries per second.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.github.dropwizardhikari.benchmarks.JdbcCeiling URL USER THREADS
 * SECONDS OWNER}</p>
 */
public final class JdbcCeiling {
    private JdbcCeiling() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: JdbcCeiling URL USER THREADS SECONDS OWNER");
            System.exit(2);
        }
        String url = args[0];
        String user = args[1];
        int threads = Integer.parseInt(args[2]);
        long seconds = Long.parseLong(args[3]);
        long owner = Long.parseLong(args[4]);
        LongAdder queries = new LongAdder();
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        List<Thread> workers = new ArrayList<>();
        List<Exception> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread worker = new Thread(() -> {
                try (Connection connection = DriverManager.getConnection(url, user, "");
                     PreparedStatement statement = connection.prepareStatement("SELECT id, creationDate, "
                         + "closedDate, deletionDate, score, ownerUserId, answerCount FROM questions "
                         + "WHERE ownerUserId = ?")) {
                    while (System.nanoTime() < deadline) {
                        statement.setLong(1, owner);
                        try (ResultSet result = statement.executeQuery()) {
                            while (result.next()) {
                                result.getLong(1);
                            }
                        }
                        queries.increment();
                    }
                } catch (Exception e) {
                    failures.add(e);
                }
            }, "ceiling-" + i);
            workers.add(worker);
            worker.start();
        }
        for (Thread worker : workers) {
            worker.join();
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
        long total = queries.sum();
        System.out.printf("%d,%d,%d,%.0f%n", threads, seconds, total, total / (double) seconds);
    }
}
