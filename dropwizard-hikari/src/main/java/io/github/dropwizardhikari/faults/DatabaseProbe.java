package io.github.dropwizardhikari.faults;

import com.zaxxer.hikari.HikariCredentialsProvider;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.util.Credentials;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Opens and closes one connection outside the pool, with the pool's driver, URL, properties and credentials: does
 * the database accept connections now, whatever state the pool is in?
 */
public final class DatabaseProbe implements AutoCloseable {
    private final HikariDataSource pool;
    private final DriverConnector connector;
    private final ExecutorService executor;

    DatabaseProbe(HikariDataSource pool, DriverConnector connector) {
        this.pool = pool;
        this.connector = connector;
        String threadName = pool.getPoolName() + ":probe";
        this.executor = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, threadName);
            thread.setDaemon(true);
            return thread;
        });
    }

    /** @return how long connecting took, in milliseconds */
    public long connect(long timeoutMillis) throws SQLException, TimeoutException {
        Future<Long> attempt = executor.submit(this::openAndClose);
        try {
            return attempt.get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            attempt.cancel(true);
            throw new SQLException("interrupted while probing the database", "08001", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SQLException sql) {
                throw sql;
            }
            throw new SQLException(String.valueOf(e.getCause()), "08001", e.getCause());
        } catch (TimeoutException e) {
            // a late connection is closed by openAndClose() itself
            attempt.cancel(true);
            throw e;
        }
    }

    private long openAndClose() throws SQLException {
        long started = System.nanoTime();
        HikariCredentialsProvider provider = pool.getCredentialsProvider();
        Credentials credentials = provider != null ? provider.getCredentials() : pool.getCredentials();
        String user = credentials == null ? null : credentials.getUsername();
        String password = credentials == null ? null : credentials.getPassword();
        try (Connection ignored = connector.connect(user, password)) {
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
