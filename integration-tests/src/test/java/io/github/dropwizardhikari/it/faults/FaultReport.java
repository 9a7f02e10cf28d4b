package io.github.dropwizardhikari.it.faults;

import io.github.dropwizardhikari.it.pools.PoolConfiguration;
import io.github.dropwizardhikari.it.report.GeneratedPages;

import java.io.IOException;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Collects fault suites' figures and writes them to a page under {@link GeneratedPages#DIRECTORY}. A page may be
 * filled by several suites of one JVM: each records its rows and rewrites the page with every row recorded so far
 * when it ends. Rows come in the order of the suites given, each suite's in the order it recorded them, so suites
 * that run at the same time write the same page as suites run one after another.
 */
final class FaultReport {
    private static final FaultReport FAULTS = new FaultReport("faults.md",
        "Faults: what each pool does when the database misbehaves", "FaultsPostgresIT", "DeadConnectionIT",
        "FailoverPostgresIT", "RotationFaultsPostgresIT", "LongOutagePostgresIT", "OutageFiguresPostgresIT",
        "SilentDatabasePostgresIT", "SilentDatabaseMariaDbIT", "DeadSessionPostgresIT", "DeadSessionMariaDbIT",
        "PrimaryFailoverPairIT", "LongQueryIT")
        .notes("""
            ## Dead sessions: the session check

            With `fault-handling` named, a borrowed connection whose server session is gone is cut, and one whose \
            session the server holds never is. No `networkTimeout` is needed, and none is set by default: a socket \
            timeout cannot tell a silent server from a long query.

            - **What is checked.** Once a `sessionCheckInterval` (1 second by default), one connection of the \
            check's own asks the server which of the connections borrowed for that long or longer it holds the \
            sessions of: on PostgreSQL, `SELECT \
            pid FROM pg_stat_activity WHERE pid = ANY (?)` with each borrowed connection's backend pid, which pgJDBC \
            keeps from the connection's start (read on each borrow without a round trip); on MariaDB, `SELECT ID \
            FROM information_schema.PROCESSLIST WHERE ID IN (...)` with each borrowed connection's server thread id, \
            which MariaDB Connector/J keeps from the connection's handshake (`getThreadId()`, the value `SELECT \
            CONNECTION_ID()` returns, read on each borrow without a round trip; `DeadSessionMariaDbIT` checks both \
            facts). A user sees its own sessions in either view. A session missing from \
            that answer is asked about again on a connection opened after it, so on the server the address leads to \
            now; missing twice, its connection is aborted (`Connection.abort`): its borrower's call fails at once \
            with the driver's I/O error and HikariCP replaces it. That is a server that restarted, a session that \
            was ended, or an address that leads to another server now (a failover to a new address, a moved VIP, a \
            repointed proxy). On MariaDB the cut closes the connection's socket instead: MariaDB Connector/J 3.5's \
            `abort` waits for a read in progress before it closes anything, so a call blocked on a silent server \
            would never end. The check names its own `socketFactory` for the pool (unless the block sets one: then \
            it falls back to the driver's `abort` on a thread of its own, which opens a connection to send `KILL` \
            and does not end a blocked read), and each socket is known by the connection id of the server's \
            handshake. A session missing from one answer only is left alone: a check connection still on the \
            old server is replaced, not believed. When two or more sessions are gone in the same round, the server \
            behind the address has changed and the idle connections were opened to the old one too: they are \
            retired as well (one session's death retires only its own connection).
            - **A server that does not answer.** The check's connection waits at most `silenceLimit` (5 seconds by \
            default) for an answer; when the server has left it unanswered that long (a timeout or an I/O error, \
            SQLState class `08`), every borrowed connection is aborted and the idle ones retired, with one `WARN` \
            naming how long the server was silent and how many connections were cut. A refusal is an answer (too \
            many connections, a login refused): it is logged once and cuts nothing.
            - **A long query runs to its end.** A query on a session the server holds is never cut, however long it \
            runs: in the table above a 16 s query, three times the silence limit, returned its row.
            - **Cost on the server.** Nothing while no connection has been borrowed for an interval or longer. \
            While one has: one connection per pool (opened then, closed when none is; its `application_name` is \
            `<pool> session check` unless the block sets one), and one query a second per pool. On PostgreSQL it \
            reads the \
            server's session table in \
            shared memory, no table and no lock (0.15 ms on the test machine), and `SELECT pg_backend_pid()` runs \
            once when that connection opens; on MariaDB the server walks its list of connections to build the \
            process list (its cost grows with the server's connections: 0.17 ms with a handful on the test machine, \
            MariaDB 10.11), and `SELECT CONNECTION_ID()` runs once when that connection opens. A new connection \
            only after a missing session or a silence. On the client: \
            one thread per pool, none per connection, and a map entry per borrowed connection. The check's \
            connection counts within `maxSize`: a pool whose every connection is stuck on a silent server cannot \
            lend one to check with, so while the check is on the pool lends at most `maxSize` − 1 (its `minSize` \
            capped to that), said in the start's `INFO` line, and the pool's `MaxConnections` is that figure; the \
            pool and its check together never hold more than `maxSize` sessions (the row "borrowers that exhaust a \
            pool" above counts them in `pg_stat_activity` and in MariaDB's process list). With `maxSize: 1` the \
            check cannot run within it: the \
            pool runs without it, said at start in one `WARN`. When the check turns itself off behind a pooler, the \
            pool lends up to `maxSize` again.
            - **Where there is nothing to check.** H2 and other databases (the check knows PostgreSQL's view, by a \
            `jdbc:postgresql:` URL, and MariaDB's, by a `jdbc:mariadb:` URL; MySQL's own driver is not checked), a \
            pool configured by `dataSourceClassName`, a multi-host PostgreSQL URL without \
            `targetServerType=primary` and a MariaDB URL naming several hosts (their sessions may live on servers \
            the check does not reach) run without it, said at start in one `INFO` line. Behind a pooler \
            (PgBouncer, ProxySQL), a connection's id is the pooler's, not the server's: the check sees that on its \
            first connection (`pg_backend_pid()`, `CONNECTION_ID()` differs), turns itself off and says why in one \
            `WARN`. On MariaDB, a server reached after a failover may have given the same thread id to a session of \
            its own: the check then leaves that connection alone, as if it had none. `sessionCheckInterval: 0` \
            turns it off.

            ## Failover evidence reaches every pool on that server

            With `failoverEviction: true`, a write refused as read-only (SQLState `25006`), or a borrow whose \
            PostgreSQL connection reports `in_hot_standby` or `default_transaction_read_only` `on` (read from \
            pgJDBC's parameter statuses, no round trip), under a block that expects a primary retires the \
            connections of every pool built from that block, and of every pool of the application (the pools sharing \
            its `MetricRegistry`) with `fault-handling` named, whatever its `failoverEviction`, whose URL reaches \
            the same server: the same host and port, or a host name that resolved to the same address when the pool \
            started (a multi-host URL counts as reaching each of its hosts). The borrow that found it fails with \
            `25006`, and its `WARN` names the pools retired. A block that asks for a standby (`readOnlyByDefault`, \
            `targetServerType=secondary` or `preferSecondary`) is left alone, and so is a pool on another server. \
            The row "one block of two pools" above is `DeadSessionPostgresIT` on two embedded servers behind a TCP \
            proxy: the core alone keeps reading from the old primary; with `fault-handling`, no read borrowed after \
            the first evidence came from it. The same suite checks the reach across blocks: a block that names the \
            server by its address and does not set `failoverEviction` has its sessions closed, a standby block and a \
            block on another server keep theirs. `<pool>.pool.ConnectivityCheck` is unhealthy, with the cause in one \
            line, while the pool's server cannot serve the block.

            ## A failover on a primary/standby pair

            The rows "Primary/standby pair, ..." come from `PrimaryFailoverPairIT`: for each cell the test makes a \
            real PostgreSQL 15 primary and its streaming standby (`initdb`, `pg_basebackup -R`, `pg_ctl promote`, \
            each on a free port), runs two writers and two readers on one pool of 4 for 1.5 s, provokes the failover \
            and runs 4 s more (the silent shape 8 s), with no `networkTimeout`. "Failed" counts the requests that \
            failed from the moment the failure began; "first write" is the first write on the promoted standby; \
            "reads from the old primary" counts the reads begun after the first failed request and answered by the \
            old primary. In the silent shape, the requests still waiting on the old primary when the run ends are \
            let go then (they would wait until TCP gives up, about 15 minutes on Linux) and counted as failed. The \
            core alone behaves as HikariCP does and Tomcat's pools as they do: after a cloud-DNS failover they keep \
            serving reads from the old primary and never write again; with `fault-handling` (`failoverEviction: \
            true`), the first evidence retires the pool and the session check cuts the silent sessions.

            ## During an outage: what the figures say, and the health page

            `hikari` is the core alone, which behaves as HikariCP does; `hikari-fault-handling` names the \
            `fault-handling` extension with `failoverEviction: true`. With `fault-handling`, every borrow that fails is \
            counted in the pool's `ConnectionTimeoutRate`, the fast failures during a known outage included, and \
            `ConnectionCreation` records connections created, not the wait for the database's return (the row \
            "Jdbi + Hibernate application" above shows both against the failed requests).

            The trade-off: a borrow that began before the pool knew of the outage waits up to \
            `maxWaitForConnection`, so that an outage shorter than that fails no request. Dropwizard's own `jdbi` \
            and `hibernate` health checks borrow through the pool, so the admin `/healthcheck` read at the outage's \
            first moment waits for them, one after the other (the row above gives the figure; with Dropwizard's \
            default of 30 s it would be a minute); once one borrower has waited its whole timeout, the page answers \
            in milliseconds. For a health page that answers at once from the first moment, schedule the checks in \
            Dropwizard's `health:` block and point the load balancer at its `/health-check`, which answers from \
            the last run (see [metrics-and-health.md](metrics-and-health.md#alert-on)).

            ## A database that goes silent

            The rows "Database silent ...", "The same failover ..." and "Both connections ..." come from \
            `SilentDatabasePostgresIT`, the rows "MariaDB: ..." from `SilentDatabaseMariaDbIT` (the core's pool \
            alone, on MariaDB's driver). In all but "Both connections ...", a TCP proxy stops passing bytes without \
            closing anything, as a network blackhole, a hung server or a failover to a new address looks to a \
            client. `hikari:` bounds a call on a silent connection with `networkTimeout` (3 s there, none by \
            default; see [configuration.md](configuration.md#held-connections-bounded)): a request fails within \
            `maxWaitForConnection` plus `networkTimeout`, and after a failover the pool serves again once that \
            bound has passed and a new connection is open. Tomcat's pools wait on the socket: through the silence \
            when it ends, and when it does not, until the kernel gives up (about 15 minutes on Linux), unless \
            `removeAbandoned` is on. The admin `/healthcheck` runs the checks one after another: each pool's Jdbi \
            or Hibernate check, which Dropwizard gives up after `validationQueryTimeout` (5 s when not set), and \
            each pool's own check, within its timeout (the validation timeout) plus one connection test. With \
            `validationQueryTimeout: 1s` in both blocks, as in these rows, `hikari:`'s page answers within a \
            request's bound (see [configuration.md](configuration.md#held-connections-bounded)); the `health:` \
            block above answers at once.
            """);

    private final String page;
    private final String title;
    private static final StackWalker CALLER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    private final List<String> suiteNames;
    private final String suites;
    // by suite, then by fault in the order recorded
    private final Map<String, Map<String, Map<PoolConfiguration, String>>> rows = new HashMap<>();
    private String notes = "";
    private final Set<String> databases = new LinkedHashSet<>();

    /**
     * @param page   the file name, under {@code target/docs/} (and {@code docs/} once refreshed)
     * @param title  the page's heading
     * @param suites the test classes that fill it
     */
    FaultReport(String page, String title, String... suites) {
        this.page = page;
        this.title = title;
        this.suiteNames = List.of(suites);
        this.suites = Arrays.stream(suites).map(suite -> "`" + suite + "`").collect(Collectors.joining(", "));
    }

    /** @return this report, with {@code text} (Markdown) after its table */
    private FaultReport notes(String text) {
        this.notes = "\n" + text;
        return this;
    }

    /** @return the report of {@code faults.md}, shared by the suites that fill it */
    static FaultReport shared() {
        return FAULTS;
    }

    /** Records a row's figure for {@code pool}, under the suite that calls it. */
    void record(String fault, PoolConfiguration pool, String figure) {
        String suite = CALLER.getCallerClass().getSimpleName();
        synchronized (this) {
            rows.computeIfAbsent(suite, key -> new LinkedHashMap<>())
                .computeIfAbsent(fault, key -> new LinkedHashMap<>()).put(pool, figure);
        }
    }

    /** @return every row, the listed suites' first in the order listed */
    private Map<String, Map<PoolConfiguration, String>> rowsInSuiteOrder() {
        Map<String, Map<PoolConfiguration, String>> ordered = new LinkedHashMap<>();
        rows.entrySet().stream()
            .sorted(Comparator.comparingInt((Map.Entry<String, ?> suite) -> suiteNames.contains(suite.getKey())
                ? suiteNames.indexOf(suite.getKey()) : suiteNames.size()).thenComparing(Map.Entry::getKey))
            .forEach(suite -> suite.getValue().forEach((fault, figures) ->
                ordered.computeIfAbsent(fault, key -> new LinkedHashMap<>()).putAll(figures)));
        return ordered;
    }

    synchronized void write(String databaseDescription) throws IOException {
        databases.add(databaseDescription);
        StringBuilder page = new StringBuilder("# ").append(title).append("\n\n")
            .append("Generated by `integration-tests` (").append(suites).append(") on ")
            .append(String.join(" and ", databases))
            .append(", copied here by `bash docs/refresh.sh` after a passing run; do not edit by hand.")
            .append(" Every pool is built through its Dropwizard factory with a 1 second connection timeout. The ")
            .append("figures are from the run that refreshed this page, on a 2-core machine.\n\n")
            .append("| Fault |");
        for (PoolConfiguration pool : PoolConfiguration.values()) {
            page.append(" `").append(pool.label()).append("` |");
        }
        page.append("\n|---|").append("---|".repeat(PoolConfiguration.values().length)).append('\n');
        rowsInSuiteOrder().forEach((fault, figures) -> {
            page.append("| ").append(fault).append(" |");
            for (PoolConfiguration pool : PoolConfiguration.values()) {
                page.append(' ').append(figures.getOrDefault(pool, "not run").replace("|", "\\|")).append(" |");
            }
            page.append('\n');
        });
        page.append(notes);
        GeneratedPages.write(this.page, page.toString());
    }
}
