package io.github.dropwizardhikari.it.pgbouncer;

/**
 * The files both stacks run: a PgBouncer configuration and a supervisor script that creates a PostgreSQL
 * cluster, starts it, and keeps PgBouncer running (restarting it when a test stops it) until a stop file appears.
 */
final class StackFiles {

    private StackFiles() {
    }

    /**
     * @param listen      the address both servers listen on
     * @param serverPort  PostgreSQL's port
     * @param bouncerPort PgBouncer's port
     * @param configDir   where this ini and the user list are
     * @param dataDir     where PgBouncer may write its log and pid file
     */
    static String ini(String listen, int serverPort, int bouncerPort, String configDir, String dataDir) {
        return String.join("\n",
            "[databases]",
            "* = host=127.0.0.1 port=" + serverPort,
            "",
            "[pgbouncer]",
            "listen_addr = " + listen,
            "listen_port = " + bouncerPort,
            // no Unix socket: it would collide with other PgBouncers on the machine
            "unix_socket_dir =",
            "auth_type = trust",
            "auth_file = " + configDir + "/userlist.txt",
            "admin_users = " + PgBouncerStack.ADMIN_USER,
            "pool_mode = transaction",
            "max_client_conn = " + PgBouncerStack.BOUNCER_MAX_CLIENT_CONNECTIONS,
            "default_pool_size = " + PgBouncerStack.BOUNCER_POOL_SIZE,
            // pgjdbc sends extra_float_digits at startup, which PgBouncer does not track
            "ignore_startup_parameters = extra_float_digits",
            // after PostgreSQL restarts, try it again within a second rather than the default 15
            "server_login_retry = 1",
            // a query waiting for a server connection fails after 10 s rather than the default 120
            "query_wait_timeout = 10",
            "logfile = " + dataDir + "/pgbouncer.log",
            "pidfile = " + dataDir + "/pgbouncer.pid",
            "");
    }

    static String userList() {
        return "\"" + PgBouncerStack.ADMIN_USER + "\" \"\"\n\"" + PgBouncerStack.APP_USER + "\" \"\"\n";
    }

    /** The options PostgreSQL is started with, on start and on restart. */
    static String serverOptions(String listen, int serverPort, String dataDir) {
        return "-p " + serverPort + " -k " + dataDir + " -c listen_addresses=" + listen + " -c max_connections="
            + PgBouncerStack.SERVER_MAX_CONNECTIONS + " -c fsync=off -c full_page_writes=off -c synchronous_commit=off";
    }

    static String supervisor(String serverBin, String bouncer, String listen, int serverPort, String configDir,
                             String dataDir) {
        return String.join("\n",
            "#!/bin/sh",
            "set -e",
            "mkdir -p " + dataDir,
            serverBin + "/initdb -D " + dataDir + "/pg -U " + PgBouncerStack.ADMIN_USER
                + " -A trust -E UTF8 --no-sync > " + dataDir + "/initdb.log 2>&1",
            "echo 'host all all 0.0.0.0/0 trust' >> " + dataDir + "/pg/pg_hba.conf",
            serverControl(serverBin, listen, serverPort, dataDir, "start"),
            "set +e",
            "while [ ! -e " + dataDir + "/stop ]; do",
            "    " + bouncer + " " + configDir + "/pgbouncer.ini",
            "    sleep 0.2",
            "done",
            "");
    }

    static String serverControl(String serverBin, String listen, int serverPort, String dataDir, String action) {
        return serverBin + "/pg_ctl -D " + dataDir + "/pg -l " + dataDir + "/postgres.log -w -t 60 -m fast -o '"
            + serverOptions(listen, serverPort, dataDir) + "' " + action + " > /dev/null";
    }

    static String stopBouncer(String dataDir) {
        return "kill $(cat " + dataDir + "/pgbouncer.pid)";
    }
}
