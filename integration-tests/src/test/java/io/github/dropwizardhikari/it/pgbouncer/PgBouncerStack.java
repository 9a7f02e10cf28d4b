package io.github.dropwizardhikari.it.pgbouncer;

import io.github.dropwizardhikari.it.db.DatabaseKind;
import io.github.dropwizardhikari.it.db.TestDatabase;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server with PgBouncer in transaction mode in front of it, both throwaway and both under the suite's
 * control, so a test can restart either. The server is the suite's own rather than the shared one because the
 * fault tests restart it. Implementations: {@link LocalPgBouncerStack} (Debian's binaries) and
 * {@link ContainerPgBouncerStack} (one container with the same Debian packages, where Docker runs).
 */
public abstract class PgBouncerStack implements AutoCloseable {
    /** The superuser, listed in PgBouncer's {@code admin_users}. */
    public static final String ADMIN_USER = "postgres";
    /** An ordinary user that PgBouncer lets in but keeps off its admin console. */
    public static final String APP_USER = "app";
    /** PostgreSQL's {@code max_connections}: low, so a pool's share shows in the sizing log; enough for the suites. */
    public static final int SERVER_MAX_CONNECTIONS = 60;
    /** PgBouncer's {@code max_client_conn}. */
    public static final int BOUNCER_MAX_CLIENT_CONNECTIONS = 200;
    /** PgBouncer's {@code default_pool_size}: server connections per database and user. */
    public static final int BOUNCER_POOL_SIZE = 20;
    private static final long READY_TIMEOUT_MILLIS = 60_000;

    /** Where the suite's clients reach PgBouncer. */
    protected abstract String bouncerHostAndPort();

    /** Where the suite reaches the PostgreSQL server directly, for setup and checks. */
    protected abstract String serverHostAndPort();

    /**
     * Runs a shell command as the servers' operating-system user.
     *
     * @return its standard output
     * @throws IllegalStateException unless it exits with 0
     */
    protected abstract String shell(String command) throws Exception;

    /** The directory the servers write their data, logs and pid files to. */
    protected abstract String dataDir();

    /** Stops both servers and removes their data. */
    @Override
    public abstract void close();

    /** Where the servers' logs are, for failure messages. */
    public abstract String describe();

    /**
     * Stops PgBouncer (all client and server connections drop); the stack's supervisor starts it again on the same
     * port. Returns once the new PgBouncer answers.
     */
    public void restartPgBouncer() throws Exception {
        String pidFile = dataDir() + "/pgbouncer.pid";
        String before = shell("cat " + pidFile).trim();
        shell(StackFiles.stopBouncer(dataDir()));
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MILLIS);
        while (shell("cat " + pidFile + " 2>/dev/null || true").trim().equals(before)
            || shell("cat " + pidFile + " 2>/dev/null || true").isBlank()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("PgBouncer did not come back; see " + describe());
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        awaitReady();
    }

    /**
     * Restarts PostgreSQL with a fast shutdown (its sessions are terminated) on the same port, behind the running
     * PgBouncer; returns once it accepts connections again.
     */
    public void restartPostgres() throws Exception {
        shell(StackFiles.serverControl(serverBin(), listenAddress(), serverPort(), dataDir(), "restart"));
    }

    protected abstract String serverBin();

    protected abstract String listenAddress();

    /** PostgreSQL's port as the servers see it. */
    protected abstract int serverPort();

    /** A fresh, empty database called {@code name}, reached through PgBouncer as the superuser. */
    public TestDatabase database(String name) {
        try (Connection connection = connectDirectly("postgres"); Statement statement = connection.createStatement()) {
            statement.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + name + " on " + describe() + ": "
                + e.getMessage(), e);
        }
        return throughBouncer(name);
    }

    /**
     * The database {@code name} through PgBouncer, as the superuser, with the driver setting of docs/pgbouncer.md
     * for a transaction pooler: {@code prepareThreshold=0}, so no statement is prepared on one server connection and
     * executed on another.
     */
    public TestDatabase throughBouncer(String name) {
        return new TestDatabase(DatabaseKind.POSTGRES, "jdbc:postgresql://" + bouncerHostAndPort() + "/" + name
            + "?prepareThreshold=0", ADMIN_USER, "", "PgBouncer (transaction mode) in front of " + describe());
    }

    /** The database {@code name} on the PostgreSQL server itself, bypassing PgBouncer. */
    public TestDatabase direct(String name) {
        return new TestDatabase(DatabaseKind.POSTGRES, "jdbc:postgresql://" + serverHostAndPort() + "/" + name,
            ADMIN_USER, "", describe());
    }

    public Connection connectDirectly(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://" + serverHostAndPort() + "/" + database, ADMIN_USER,
            "");
    }

    /** For reports: which versions of the two servers run, such as "PostgreSQL 15.14 behind PgBouncer 1.18.0". */
    public String versions() {
        try (Connection server = connectDirectly("postgres"); Statement statement = server.createStatement();
             ResultSet version = statement.executeQuery("SHOW server_version")) {
            version.next();
            // PostgreSQL's JDBC driver cannot use PgBouncer's admin console (SHOW VERSION): ask the binary
            return "PostgreSQL " + version.getString(1).replaceFirst(" .*", "") + " behind "
                + shell(bouncerBinary() + " --version").lines().findFirst().orElse("PgBouncer").trim();
        } catch (Exception e) {
            throw new IllegalStateException("could not read the versions of " + describe() + ": " + e.getMessage(), e);
        }
    }

    /** How the servers' user runs PgBouncer. */
    protected abstract String bouncerBinary();

    /** Waits until a query through PgBouncer answers, which needs both servers up. */
    protected void awaitReady() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(READY_TIMEOUT_MILLIS);
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            try (Connection connection = DriverManager.getConnection("jdbc:postgresql://" + bouncerHostAndPort()
                + "/postgres?connectTimeout=2&socketTimeout=5", ADMIN_USER, "");
                 Statement statement = connection.createStatement()) {
                statement.execute("SELECT 1");
                return;
            } catch (SQLException e) {
                last = e;
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
        throw new IllegalStateException("PgBouncer did not answer within " + READY_TIMEOUT_MILLIS + " ms: "
            + (last == null ? "" : last.getMessage()) + "; see " + describe());
    }

    /** Creates {@link #APP_USER}, once the servers are up. */
    protected void createAppUser() throws SQLException {
        try (Connection connection = connectDirectly("postgres"); Statement statement = connection.createStatement()) {
            statement.execute("CREATE ROLE " + APP_USER + " LOGIN");
        }
    }
}
