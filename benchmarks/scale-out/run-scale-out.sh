#!/usr/bin/env bash
# Many instances of the example against one PostgreSQL whose connections run out: N = 1, 2, 4, 8 instances, each
# with the same fixed pool, first connecting directly, then through PgBouncer in transaction mode. Per N it
# records how many instances started, aggregate requests/s, p50/p99, errors and the server connections in use.
#
#   bash benchmarks/scale-out/run-scale-out.sh            # the run behind docs/scale-out.md (about 15 minutes)
#   bash benchmarks/scale-out/run-scale-out.sh --quick    # a smoke run: N = 1 2, a few seconds each
#
# It starts its own throwaway PostgreSQL cluster and PgBouncer on free ports (as the postgres user when run as
# root: both refuse root) and removes them at exit; the machine's PostgreSQL on 5432 is not touched.
# Needs: dropwizard-hikari-example/target/questions-app.jar (./mvnw -B -q package -DskipTests), Debian's
# postgresql and pgbouncer packages, wrk, psql, curl, python3 (and gnuplot for the chart).
#
# Settings (environment): INSTANCES ("1 2 4 8"), POOL (8 connections per instance), MAX_CONNECTIONS (30, of which
# PostgreSQL keeps 3 for superusers), BOUNCER_POOL (20 server connections), CONNECTIONS_PER_INSTANCE (wrk, 4),
# WARMUP and DURATION (seconds, 20 and 30), HEAP (96m), ROWS (20000), OUT (benchmarks/results/scale-out).
set -euo pipefail
cd "$(dirname "$0")/../.."

quick=false
[ "${1:-}" = "--quick" ] && quick=true
if $quick; then
    INSTANCES=${INSTANCES:-"1 2"}
    WARMUP=${WARMUP:-3}
    DURATION=${DURATION:-3}
    OUT=${OUT:-$(mktemp -d)}
else
    INSTANCES=${INSTANCES:-"1 2 4 8"}
    WARMUP=${WARMUP:-20}
    DURATION=${DURATION:-30}
    OUT=${OUT:-benchmarks/results/scale-out}
fi
POOL=${POOL:-8}
MAX_CONNECTIONS=${MAX_CONNECTIONS:-30}
BOUNCER_POOL=${BOUNCER_POOL:-20}
CONNECTIONS_PER_INSTANCE=${CONNECTIONS_PER_INSTANCE:-4}
HEAP=${HEAP:-96m}
ROWS=${ROWS:-20000}
APP_JAR=dropwizard-hikari-example/target/questions-app.jar
LUA=benchmarks/scale-out/multi.lua

for tool in wrk psql curl python3 pgbouncer; do
    if ! command -v "$tool" >/dev/null && [ ! -x "/usr/sbin/$tool" ]; then
        echo "$tool is missing. On Debian: apt-get install -y wrk postgresql-client curl python3 pgbouncer" >&2
        exit 1
    fi
done
PGBOUNCER=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
PGBIN=${PGBIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
if [ ! -x "$PGBIN/initdb" ]; then
    echo "PostgreSQL's server binaries are missing (initdb, pg_ctl): apt-get install -y postgresql, or set PGBIN" >&2
    exit 1
fi
if [ ! -f "$APP_JAR" ]; then
    echo "missing $APP_JAR: build it with ./mvnw -B -q package -DskipTests" >&2
    exit 1
fi

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}
# both servers refuse to run as root
as_postgres() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

work=$(mktemp -d /tmp/scale-out-XXXXXX)
[ "$(id -u)" = 0 ] && chown postgres "$work"
PG_PORT=$(free_port)
BOUNCER_PORT=$(free_port)
app_pids=()

stop_apps() {
    for pid in "${app_pids[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${app_pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    app_pids=()
}
cleanup() {
    stop_apps
    [ -f "$work/pgbouncer.pid" ] && kill "$(cat "$work/pgbouncer.pid")" 2>/dev/null || true
    as_postgres "$PGBIN/pg_ctl" -D "$work/pg" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

echo "== a throwaway PostgreSQL on port $PG_PORT: max_connections $MAX_CONNECTIONS"
as_postgres "$PGBIN/initdb" -D "$work/pg" -U postgres -A trust -E UTF8 --no-sync >/dev/null
as_postgres "$PGBIN/pg_ctl" -D "$work/pg" -l "$work/postgres.log" -w -o "-p $PG_PORT -k $work \
    -c listen_addresses=127.0.0.1 -c max_connections=$MAX_CONNECTIONS -c fsync=off -c synchronous_commit=off" \
    start >/dev/null
PSQL="psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p $PG_PORT -U postgres"
# the instances connect as an ordinary user, so PostgreSQL's superuser reservation applies to them
$PSQL -d postgres -c "CREATE ROLE app LOGIN" -c "CREATE DATABASE bench OWNER app"
LIMIT=$($PSQL -tA -d postgres -c "SELECT current_setting('max_connections')::int \
    - current_setting('superuser_reserved_connections')::int")

echo "== PgBouncer on port $BOUNCER_PORT: transaction mode, $BOUNCER_POOL server connections"
cat > "$work/userlist.txt" <<USERS
"app" ""
"postgres" ""
USERS
cat > "$work/pgbouncer.ini" <<INI
[databases]
bench = host=127.0.0.1 port=$PG_PORT dbname=bench
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $BOUNCER_PORT
unix_socket_dir =
auth_type = trust
auth_file = $work/userlist.txt
admin_users = postgres
pool_mode = transaction
max_client_conn = 500
default_pool_size = $BOUNCER_POOL
ignore_startup_parameters = extra_float_digits
logfile = $work/pgbouncer.log
pidfile = $work/pgbouncer.pid
INI
as_postgres "$PGBOUNCER" -d "$work/pgbouncer.ini"

echo "== data: $ROWS questions"
csv="$work/questions.csv"
java -jar "$APP_JAR" generate-questions --rows "$ROWS" --owners $(( ROWS / 10 + 1 )) --seed 42 "$csv" >/dev/null
QUESTIONS_DB_URL="jdbc:postgresql://127.0.0.1:$PG_PORT/bench" QUESTIONS_DB_USER=app \
    java -jar "$APP_JAR" load-questions dropwizard-hikari-example/example-postgres.yml "$csv" > "$work/load.log" 2>&1
OWNER=$($PSQL -tA -d bench -c "SELECT ownerUserId FROM questions WHERE ownerUserId IS NOT NULL \
    GROUP BY ownerUserId HAVING COUNT(*) = 9 ORDER BY ownerUserId LIMIT 1")
echo "owner with 9 questions: $OWNER"

mkdir -p "$OUT"
results="$OUT/scale-out.csv"
echo "mode,instances,started,requests,requests_per_s,p50_ms,p99_ms,max_ms,errors,server_connections,server_limit" \
    > "$results"
logs="$OUT/startup.log"
: > "$logs"

server_connections() {
    $PSQL -tA -d postgres -c "SELECT COUNT(*) FROM pg_stat_activity WHERE usename = 'app'"
}

# start_instances MODE N: starts N instances at once and leaves the ports of those that became healthy in $ports
start_instances() {
    local mode=$1 count=$2 url
    if [ "$mode" = direct ]; then
        url="jdbc:postgresql://127.0.0.1:$PG_PORT/bench"
    else
        url="jdbc:postgresql://127.0.0.1:$BOUNCER_PORT/bench?prepareThreshold=0"
    fi
    local pooler=none
    [ "$mode" = pgbouncer ] && pooler=transaction
    local app_ports=() i
    for i in $(seq 1 "$count"); do
        local port
        port=$(free_port)
        app_ports+=("$port")
        QUESTIONS_DB_URL="$url" QUESTIONS_DB_USER=app java -Xms"$HEAP" -Xmx"$HEAP" -XX:+UseSerialGC \
            -Ddw.hikari.maxSize="$POOL" -Ddw.hikari.minSize="$POOL" -Ddw.hikari.extensions[0].pooler="$pooler" \
            -Ddw.server.maxThreads=$(( POOL + 4 )) -Ddw.server.minThreads=$(( POOL + 4 )) \
            -Ddw.server.applicationConnectors[0].port="$port" -Ddw.server.adminConnectors[0].port=0 \
            -jar "$APP_JAR" server dropwizard-hikari-example/example-postgres.yml > "$work/app-$mode-$count-$i.log" 2>&1 &
        app_pids+=($!)
    done
    ports=()
    for i in $(seq 1 "$count"); do
        local pid=${app_pids[$((i - 1))]} port=${app_ports[$((i - 1))]} up=false
        for _ in $(seq 1 240); do
            if curl -fs "http://127.0.0.1:$port/questions?user=$OWNER" >/dev/null 2>&1; then
                up=true
                break
            fi
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.5
        done
        if $up; then
            ports+=("$port")
        else
            # the cause (the server's refusal) rather than Dropwizard's "Unable to start server"
            echo "$mode N=$count instance $i did not start: $(grep -m1 -E 'FATAL|PSQLException|Exception' \
                "$work/app-$mode-$count-$i.log" | cut -c1-300)" | tee -a "$logs"
        fi
        # the sizing line each instance logged at start
        grep -h -m1 'Pool questions: ' "$work/app-$mode-$count-$i.log" | sed "s/^/$mode N=$count instance $i: /" \
            >> "$logs" || true
    done
}

for mode in direct pgbouncer; do
    for count in $INSTANCES; do
        echo "== $mode, $count instance(s) of pool $POOL"
        start_instances "$mode" "$count"
        started=${#ports[@]}
        if [ "$started" -eq 0 ]; then
            echo "$mode,$count,0,0,0,,,,,$(server_connections),$LIMIT" | tee -a "$results"
            stop_apps
            continue
        fi
        port_list=$(IFS=,; echo "${ports[*]}")
        connections=$(( started * CONNECTIONS_PER_INSTANCE ))
        PORTS=$port_list wrk -t"$started" -c"$connections" -d"${WARMUP}s" -s "$LUA" \
            "http://127.0.0.1:${ports[0]}/questions?user=$OWNER" >/dev/null
        peak=0
        (
            for _ in $(seq 1 $(( DURATION / 2 ))); do server_connections; sleep 2; done
        ) > "$work/samples" &
        sampler=$!
        line=$(PORTS=$port_list wrk -t"$started" -c"$connections" -d"${DURATION}s" -s "$LUA" \
            "http://127.0.0.1:${ports[0]}/questions?user=$OWNER" | grep '^CSV,' | cut -d, -f2-)
        wait "$sampler" || true
        peak=$(sort -n "$work/samples" | tail -1)
        echo "$mode,$count,$started,$line,$peak,$LIMIT" | tee -a "$results"
        stop_apps
    done
done

python3 benchmarks/report/scale_out_report.py "$OUT" "$POOL" "$MAX_CONNECTIONS" "$BOUNCER_POOL" \
    "$CONNECTIONS_PER_INSTANCE" "$HEAP" "$WARMUP" "$DURATION"
