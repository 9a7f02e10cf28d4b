package io.github.dropwizardhikari.faulthandling;

import com.zaxxer.hikari.HikariDataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * Cuts a borrowed connection whose server session is gone, and never one whose session the server holds. Once per
 * interval, while a connection has been borrowed for an interval or longer, one connection of its own (opened then,
 * closed when none is) asks the server which of those connections' sessions it holds
 * (PostgreSQL: {@code pg_stat_activity} by backend pid; MariaDB: {@code information_schema.PROCESSLIST} by thread
 * id). A session missing from that answer, and again from the
 * answer of a connection opened after it (so from the server the address leads to now), is aborted
 * ({@code Connection.abort}): its borrower's call fails at once and HikariCP replaces it. When the server has not
 * answered for the silence limit, every borrowed connection is aborted and the idle ones retired. A query on a
 * session the server holds runs to its end, however long.
 */
final class DeadSessionCheck {
    private static final Logger LOGGER = LoggerFactory.getLogger(DeadSessionCheck.class);
    private static final Executor IN_PLACE = Runnable::run;

    /** What one database can say of its sessions. */
    interface Sessions {
        /** @return the server's id of the driver connection's session, or -1 when it cannot tell */
        long id(Connection connection) throws SQLException;

        /** @return which of {@code ids} the server holds, asked on {@code monitor} */
        Set<Long> known(Connection monitor, Collection<Long> ids) throws SQLException;

        /** @return why sessions cannot be checked through {@code monitor} (a pooler between), or {@code null} */
        @Nullable
        String unusable(Connection monitor) throws SQLException;

        /**
         * @return why {@code monitor}'s id as its driver reports it ({@code idName}) is not the server's, which
         *     {@code ownIdQuery} asks for: {@code between} stands between the pool and the server; or {@code null}
         */
        @Nullable
        default String notTheServers(Connection monitor, String ownIdQuery, String idName, String between)
            throws SQLException {
            long reported = id(monitor);
            try (Statement statement = monitor.createStatement();
                 ResultSet row = statement.executeQuery(ownIdQuery)) {
                row.next();
                long server = row.getLong(1);
                return reported == server ? null : "the connection's " + idName + " (" + reported
                    + ") is not the server's (" + server + "): " + between;
            }
        }

        /**
         * Ends the borrowed {@code connection} of session {@code id} so that its borrower's call fails at once:
         * {@code Connection.abort}, unless the driver needs another way.
         */
        default void cut(Connection connection, long id) throws SQLException {
            connection.abort(IN_PLACE);
        }

        /** @return how the log names a session: PostgreSQL's backend pid, unless the database says otherwise */
        default String describe(long id) {
            return "pid " + id;
        }
    }

    /** Opens the check's own connection, as the pool opens its connections. */
    @FunctionalInterface
    interface Opener {
        Connection open() throws SQLException;
    }

    private static final class Watched {
        final long id;
        final long sinceNanos;
        // the monitor connection (by its number) whose answer first missed the session; 0 while it was found
        volatile long missedBy;

        Watched(long id, long sinceNanos) {
            this.id = id;
            this.sinceNanos = sinceNanos;
        }
    }

    private final String poolName;
    private final Sessions sessions;
    private final Opener opener;
    private final long intervalMillis;
    private final long intervalNanos;
    private final long silenceNanos;
    private final LongSupplier nanoTime;
    private final Map<Connection, Watched> borrowed = new ConcurrentHashMap<>();
    @Nullable
    private volatile HikariDataSource pool;
    @Nullable
    private ScheduledExecutorService timer;
    // the fields below are used by the check's thread alone
    @Nullable
    private Connection monitor;
    private long monitorNumber;
    private long lastAnswerNanos;
    private volatile boolean silenceLogged;
    private volatile long silentSinceNanos;
    private boolean refusalLogged;
    private volatile boolean off;
    // the block's maxSize and minSize, given back to the pool when the check turns itself off; 0 when none was taken
    private int reservedMaxSize;
    private int reservedMinIdle;

    DeadSessionCheck(String poolName, Sessions sessions, Opener opener, long intervalMillis, long silenceMillis) {
        this(poolName, sessions, opener, intervalMillis, silenceMillis, System::nanoTime);
    }

    DeadSessionCheck(String poolName, Sessions sessions, Opener opener, long intervalMillis, long silenceMillis,
                     LongSupplier nanoTime) {
        this.poolName = poolName;
        this.sessions = sessions;
        this.opener = opener;
        this.intervalMillis = intervalMillis;
        this.intervalNanos = TimeUnit.MILLISECONDS.toNanos(intervalMillis);
        this.silenceNanos = TimeUnit.MILLISECONDS.toNanos(silenceMillis);
        this.nanoTime = nanoTime;
        this.lastAnswerNanos = nanoTime.getAsLong();
    }

    /** The pool lends one connection fewer than {@code maxSize} while the check runs: given back if it turns off. */
    void reserved(int maxSize, int minIdle) {
        this.reservedMaxSize = maxSize;
        this.reservedMinIdle = minIdle;
    }

    /** Starts checking every interval on one thread of the pool's. */
    synchronized void start(HikariDataSource running) {
        attach(running);
        this.lastAnswerNanos = nanoTime.getAsLong();
        timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, poolName + ":sessions");
            thread.setDaemon(true);
            return thread;
        });
        timer.scheduleWithFixedDelay(this::check, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
    }

    /** The pool whose idle connections are retired on a silence, or when several sessions are gone at once. */
    void attach(HikariDataSource running) {
        this.pool = running;
    }

    synchronized void stop() {
        pool = null;
        if (timer != null) {
            timer.shutdownNow();
            try {
                timer.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            timer = null;
        }
        closeMonitor();
        borrowed.clear();
    }

    /** A borrow succeeded: its session is watched until the borrower closes the connection. */
    void borrowed(Connection connection) {
        if (off) {
            return;
        }
        try {
            long id = sessions.id(connection);
            if (id >= 0) {
                borrowed.put(connection, new Watched(id, nanoTime.getAsLong()));
            }
        } catch (SQLException | RuntimeException e) {
            // a connection the check cannot name is left alone
        }
    }

    /** @return why the pool cannot serve now: the server has left the check unanswered past the limit */
    Optional<String> problem() {
        return silenceLogged ? Optional.of("the server has not answered the session check for "
            + TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - silentSinceNanos) + " ms; borrowed connections "
            + "were cut") : Optional.empty();
    }

    /** @return how many borrowed connections are watched */
    int watched() {
        return borrowed.size();
    }

    /** One round: forget returned connections, ask the server, act on its answer or its silence. */
    void check() {
        borrowed.keySet().removeIf(DeadSessionCheck::isClosed);
        if (off) {
            return;
        }
        long asked = nanoTime.getAsLong();
        Set<Long> held = borrowed.values().stream().filter(watched -> asked - watched.sinceNanos >= intervalNanos)
            .map(watched -> watched.id).collect(Collectors.toSet());
        if (held.isEmpty()) {
            // nothing held long enough to be stuck: no connection of the check's, no query, nothing to report
            closeMonitor();
            lastAnswerNanos = asked;
            silenceLogged = false;
            return;
        }
        Set<Long> known;
        try {
            if (monitor == null) {
                monitor = opener.open();
                monitorNumber++;
                String unusable = sessions.unusable(monitor);
                if (unusable != null) {
                    off = true;
                    borrowed.clear();
                    closeMonitor();
                    LOGGER.warn("Pool {}: sessions are not checked: {}{}", poolName, unusable, giveBack());
                    return;
                }
                monitor.setNetworkTimeout(IN_PLACE, (int) Math.min(Integer.MAX_VALUE,
                    TimeUnit.NANOSECONDS.toMillis(silenceNanos)));
            }
            known = sessions.known(monitor, held);
        } catch (SQLException | RuntimeException e) {
            closeMonitor();
            unanswered(e, asked);
            return;
        }
        lastAnswerNanos = nanoTime.getAsLong();
        if (silenceLogged) {
            silenceLogged = false;
            LOGGER.info("Pool {}: the server answers the session check again", poolName);
        }
        refusalLogged = false;
        boolean missing = false;
        int gone = 0;
        for (Map.Entry<Connection, Watched> entry : borrowed.entrySet()) {
            Watched watched = entry.getValue();
            if (!held.contains(watched.id) || known.contains(watched.id)) {
                watched.missedBy = 0;
            } else if (watched.missedBy == 0 || watched.missedBy == monitorNumber) {
                watched.missedBy = monitorNumber;
                missing = true;
            } else {
                borrowed.remove(entry.getKey());
                abort(entry.getKey(), watched.id);
                gone++;
                LOGGER.warn("Pool {}: aborted a connection borrowed {} ms ago: the server does not hold its session "
                        + "({}) any more (it restarted, the session was ended, or the address leads to another "
                        + "server now), as two connections of the session check, one opened after the other, found",
                    poolName, TimeUnit.NANOSECONDS.toMillis(nanoTime.getAsLong() - watched.sinceNanos),
                    sessions.describe(watched.id));
            }
        }
        if (gone > 1) {
            // several sessions gone at once: the server behind the address changed, and the idle connections were
            // opened to the old one too (one session's death retires only its own connection)
            HikariDataSource running = pool;
            if (running != null && running.getHikariPoolMXBean() != null) {
                running.getHikariPoolMXBean().softEvictConnections();
                LOGGER.warn("Pool {}: {} sessions gone at once, as after a failover: retired the pool's idle "
                    + "connections too", poolName, gone);
            }
        }
        if (missing) {
            // the second answer comes from a connection opened now, to the server the address leads to now
            closeMonitor();
        }
    }

    /** @return what the log adds: the pool lends {@code maxSize} again, the check's connection being gone */
    private String giveBack() {
        HikariDataSource running = pool;
        if (reservedMaxSize == 0 || running == null || running.getHikariConfigMXBean() == null) {
            return "";
        }
        running.getHikariConfigMXBean().setMaximumPoolSize(reservedMaxSize);
        running.getHikariConfigMXBean().setMinimumIdle(reservedMinIdle);
        return "; the pool lends up to maxSize (" + reservedMaxSize + ") again";
    }

    private void unanswered(Exception e, long asked) {
        boolean silent = e instanceof SQLTimeoutException
            || (e instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("08"));
        if (!silent) {
            // the server answered, with a refusal (too many connections, a login refused): not a silence
            lastAnswerNanos = nanoTime.getAsLong();
            if (!refusalLogged) {
                refusalLogged = true;
                LOGGER.warn("Pool {}: the session check cannot run now: {}", poolName, e.toString());
            }
            return;
        }
        long silentNanos = nanoTime.getAsLong() - Math.min(asked, lastAnswerNanos);
        if (silentNanos < silenceNanos) {
            return;
        }
        int aborted = 0;
        for (Map.Entry<Connection, Watched> entry : borrowed.entrySet()) {
            borrowed.remove(entry.getKey());
            abort(entry.getKey(), entry.getValue().id);
            aborted++;
        }
        HikariDataSource running = pool;
        if (running != null && running.getHikariPoolMXBean() != null) {
            running.getHikariPoolMXBean().softEvictConnections();
        }
        if (!silenceLogged || aborted > 0) {
            if (!silenceLogged) {
                silentSinceNanos = nanoTime.getAsLong() - silentNanos;
            }
            silenceLogged = true;
            LOGGER.warn("Pool {}: the server has not answered the session check for {} ms ({}): aborted {} borrowed "
                    + "connection(s), their borrowers' calls fail now; idle connections are retired", poolName,
                TimeUnit.NANOSECONDS.toMillis(silentNanos), e.toString(), aborted);
        }
    }

    private void abort(Connection connection, long id) {
        try {
            sessions.cut(connection, id);
        } catch (SQLException | RuntimeException e) {
            LOGGER.warn("Pool {}: could not abort a connection of a dead session: {}", poolName, e.toString());
        }
    }

    private void closeMonitor() {
        Connection current = monitor;
        monitor = null;
        if (current != null) {
            try {
                // abort: a close would write to a server that may not answer
                current.abort(IN_PLACE);
            } catch (SQLException | RuntimeException e) {
                // gone already
            }
        }
    }

    private static boolean isClosed(Connection connection) {
        try {
            return connection.isClosed();
        } catch (SQLException e) {
            return true;
        }
    }
}
