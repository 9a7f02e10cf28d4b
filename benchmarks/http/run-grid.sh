#!/usr/bin/env bash
# The seed experiment, done fairly: the questions API on PostgreSQL under wrk, for each pool configuration, over
# a grid of pool sizes and Jetty request threads; then the other endpoints at one grid point, a non-fixed pool,
# and the JDBC ceiling. The app runs on CPU 0; PostgreSQL and wrk on CPU 1.
#
#   bash benchmarks/http/run-grid.sh              # the plan behind docs/benchmarks.md
#   bash benchmarks/http/run-grid.sh --quick      # smoke test: a few seconds, one grid point per configuration
#   bash benchmarks/http/run-grid.sh --virtual    # on virtual threads (JDK 25, server.enableVirtualThreads):
#                                                 # hikari, hikari-unfair, tomcat-safe; pools 4, 8; 256 wrk
#                                                 # connections; 3 runs, 60 s warm-up, 20 s measured
#   bash benchmarks/http/run-grid.sh --gate       # the fair borrow gate's comparison: configs hikari,
#                                                 # hikari-unfair, hikari-admission, tomcat-safe; pools 4, 8 x
#                                                 # request threads 16, 32, 64; 3 runs, 60 s warm-up; the mixed
#                                                 # workload; no other endpoints
#
# The mixed workload: half of wrk's connections on the questions endpoint, half on GET /pause?ms=20 (waits, never
# uses the database), two wrk processes at once; each endpoint's requests/s and p99 per configuration.
#
# The query is the seed's: GET /questions?user=N for an owner N with 9 questions.
#
# Settings (environment): CONFIGS, POOLS, THREADS, RUNS, WARMUP and DURATION (seconds), ROWS (data set size),
# MIXED_CONFIGS and MIXED_POINT ("pool threads") for the mixed workload (MIXED_CONFIGS="" skips it), PAUSE_MS,
# CONNECTIONS (wrk connections), WRK_TIMEOUT (wrk's --timeout: 2s, 30s in quick mode), OUT (results directory), PGURL (psql URL of the database to use), SCHEMA (where
# the data set lives: bench, bench_quick in quick mode), APP_PORT (18080, 18090 in quick mode) and ADMIN_PORT (the next one).
set -euo pipefail
cd "$(dirname "$0")/../.."

quick=false
gate=false
virtual=false
case "${1:-}" in
    --quick) quick=true ;;
    --gate) gate=true ;;
    --virtual) virtual=true ;;
    "") ;;
    *) echo "usage: run-grid.sh [--quick | --gate | --virtual]" >&2; exit 2 ;;
esac
# the application's JVM, and server settings added to every start
APP_JAVA=${APP_JAVA:-java}
SERVER_SETTINGS=${SERVER_SETTINGS:-}

if $quick; then
    CONFIGS=${CONFIGS:-"hikari hikari-unfair hikari-admission tomcat-safe"}
    MIXED_CONFIGS=${MIXED_CONFIGS-"hikari hikari-admission tomcat-safe"}
    MIXED_POINT=${MIXED_POINT:-"2 8"}
    ENDPOINT_CONFIGS=${ENDPOINT_CONFIGS:-"hikari tomcat-safe"}
    POOLS=${POOLS:-"2"}
    THREADS=${THREADS:-"4"}
    RUNS=${RUNS:-1}
    # a warm-up long enough to have requests served; a run that serves none is measured again (below)
    WARMUP=${WARMUP:-2}
    DURATION=${DURATION:-2}
    # A smoke test asks whether requests are served, not how fast: on a loaded 2-core machine one answer may take
    # longer than wrk's default 2 s, and it is still an answer. Full runs keep 2 s and count slower ones.
    WRK_TIMEOUT=${WRK_TIMEOUT:-30s}
    ROWS=${ROWS:-20000}
    ENDPOINT_POINT=${ENDPOINT_POINT:-"2 4"}
    CEILING_THREADS=${CEILING_THREADS:-"1"}
    # its own schema and ports: a smoke test must never replace the full run's data set or take its ports
    SCHEMA=${SCHEMA:-bench_quick}
    APP_PORT=${APP_PORT:-18090}
elif $virtual; then
    CONFIGS=${CONFIGS:-"hikari hikari-unfair tomcat-safe"}
    POOLS=${POOLS:-"4 8"}
    # Jetty's platform threads; each request runs on a virtual thread, so this does not cap concurrency
    THREADS=${THREADS:-"16"}
    CONNECTIONS=${CONNECTIONS:-256}
    RUNS=${RUNS:-3}
    WARMUP=${WARMUP:-60}
    DURATION=${DURATION:-20}
    ROWS=${ROWS:-1000000}
    SKIP_EXTRAS=${SKIP_EXTRAS:-true}
    MIXED_CONFIGS=${MIXED_CONFIGS:-}
    SCHEMA=${SCHEMA:-bench}
    APP_PORT=${APP_PORT:-18080}
    OUT=${OUT:-benchmarks/results/virtual-http}
    APP_JAVA=$(.ci/find-jdk 25)/bin/java
    SERVER_SETTINGS="$SERVER_SETTINGS -Ddw.server.enableVirtualThreads=true"
elif $gate; then
    CONFIGS=${CONFIGS:-"hikari hikari-unfair hikari-admission tomcat-safe"}
    POOLS=${POOLS:-"4 8"}
    THREADS=${THREADS:-"16 32 64"}
    RUNS=${RUNS:-3}
    WARMUP=${WARMUP:-60}
    DURATION=${DURATION:-10}
    ROWS=${ROWS:-1000000}
    SKIP_EXTRAS=${SKIP_EXTRAS:-true}
    SCHEMA=${SCHEMA:-bench}
    APP_PORT=${APP_PORT:-18080}
    OUT=${OUT:-benchmarks/results/gate}
else
    CONFIGS=${CONFIGS:-"hikari tomcat-default tomcat-safe"}
    POOLS=${POOLS:-"1 2 4 8 16 32"}
    # Dropwizard requires maxThreads >= 4, so 2 request threads is the smallest server that can be configured
    THREADS=${THREADS:-"2 4 8 16 32 64"}
    RUNS=${RUNS:-1}
    WARMUP=${WARMUP:-15}
    DURATION=${DURATION:-10}
    ROWS=${ROWS:-1000000}
    ENDPOINT_POINT=${ENDPOINT_POINT:-"8 16"}
    CEILING_THREADS=${CEILING_THREADS:-"1 2 4 8"}
    SCHEMA=${SCHEMA:-bench}
    APP_PORT=${APP_PORT:-18080}
fi
ADMIN_PORT=${ADMIN_PORT:-$(( APP_PORT + 1 ))}
# the mixed workload compares the bundle's configurations with the same app without the bundle (tomcat-safe)
MIXED_CONFIGS=${MIXED_CONFIGS-"hikari hikari-unfair hikari-admission tomcat-safe"}
MIXED_POINT=${MIXED_POINT:-"4 32"}
PAUSE_MS=${PAUSE_MS:-20}
CONNECTIONS=${CONNECTIONS:-64}
# SKIP_EXTRAS=true runs the grid alone, without the endpoints, the non-fixed pool and the ceiling
SKIP_EXTRAS=${SKIP_EXTRAS:-false}
OUT=${OUT:-benchmarks/results/http}
# wrk's own default: a request slower than this counts as an error (a time-out) in the rows
WRK_TIMEOUT=${WRK_TIMEOUT:-2s}
PGURL=${PGURL:-postgresql://postgres@127.0.0.1:5432/test}
JDBC_URL="jdbc:postgresql://127.0.0.1:5432/test?currentSchema=$SCHEMA"
APP_JAR=dropwizard-hikari-example/target/questions-app.jar
BENCH_JAR=benchmarks/target/benchmarks.jar
# Jetty takes one acceptor and one selector thread from the pool on this 2-core machine, so a server with
# maxThreads = R + 2 runs R requests at once (the seed used R + 6 on its machine).
JETTY_OVERHEAD=2

for tool in wrk psql taskset curl python3; do
    if ! command -v "$tool" >/dev/null; then
        echo "$tool is missing. On Debian: apt-get install -y wrk postgresql-client util-linux curl python3" >&2
        exit 1
    fi
done
for jar in "$APP_JAR" "$BENCH_JAR"; do
    if [ ! -f "$jar" ]; then
        echo "missing $jar: build with ./mvnw -B -q install -DskipTests" >&2
        exit 1
    fi
done

mkdir -p "$OUT"
app_pid=""
stop_app() {
    if [ -n "$app_pid" ] && kill -0 "$app_pid" 2>/dev/null; then
        kill "$app_pid"
        wait "$app_pid" 2>/dev/null || true
    fi
    app_pid=""
}
pinned_here=false
unpin_postgres() {
    # only the run that pinned PostgreSQL gives it its CPUs back: another run may still be measuring
    if $pinned_here; then
        for pid in $(pgrep -u postgres postgres || true); do taskset -a -p -c 0-$(( $(nproc) - 1 )) "$pid" >/dev/null 2>&1 || true; done
    fi
}
cleanup() {
    stop_app
    unpin_postgres
}
trap cleanup EXIT

# PostgreSQL (postmaster and backends, new ones inherit it) on CPU 1, away from the application on CPU 0.
postmaster=$(pgrep -o -u postgres postgres || true)
if [ -n "$postmaster" ] && [ "$(taskset -p -c "$postmaster" 2>/dev/null | awk '{print $NF}')" = 1 ]; then
    echo "PostgreSQL is already pinned to CPU 1 (by another run): leaving its affinity alone"
else
    pinned_here=true
    for pid in $(pgrep -u postgres postgres || true); do taskset -a -p -c 1 "$pid" >/dev/null 2>&1 || true; done
fi

prepare_data() {
    psql -q "$PGURL" -c "CREATE SCHEMA IF NOT EXISTS $SCHEMA" >/dev/null
    local have
    have=$(psql -tA "$PGURL" -c "SELECT COUNT(*) FROM $SCHEMA.questions" 2>/dev/null || echo 0)
    if [ "$have" = "$ROWS" ]; then
        echo "data: $SCHEMA.questions already holds $ROWS rows"
        return
    fi
    local csv="$OUT/questions-$ROWS.csv"
    java -jar "$APP_JAR" generate-questions --rows "$ROWS" --owners $(( ROWS / 10 + 1 )) --seed 42 "$csv"
    QUESTIONS_DB_URL="$JDBC_URL" java -jar "$APP_JAR" load-questions \
        dropwizard-hikari-example/example-postgres.yml "$csv"
    rm -f "$csv"
}

# The hikari configurations differ only in the extensions their block names. `hikari` is example-postgres.yml as it
# is (operations, fault-handling, fair-borrowing); `hikari-unfair` drops fair-borrowing, `hikari-admission` adds
# admission after it, `hikari-holders` adds holders before the others (it must be listed first) and
# `hikari-unfair-holders` is `hikari-unfair` with holders first, each written
# from that file into $OUT, so one file stays the source of every other setting.
# Results recorded before the extensions were modules called these the gate on and off and admission's bundle on.
hikari_config() {
    local name=$1 line=$2 expression=$3 file="$OUT/$1.yml"
    sed "$expression" dropwizard-hikari-example/example-postgres.yml > "$file"
    if cmp -s "$file" dropwizard-hikari-example/example-postgres.yml; then
        echo "example-postgres.yml no longer has the line '$line' that $name changes" >&2
        exit 1
    fi
    echo "$file"
}

config_file() {
    case "$1" in
        hikari|hikari-variable) echo dropwizard-hikari-example/example-postgres.yml ;;
        hikari-unfair) hikari_config hikari-unfair "    - type: fair-borrowing" '/^    - type: fair-borrowing/d' ;;
        hikari-admission) hikari_config hikari-admission "    - type: fair-borrowing" \
            '/^    - type: fair-borrowing/a\    - type: admission' ;;
        hikari-holders) hikari_config hikari-holders "  extensions:" '/^  extensions:$/a\    - type: holders' ;;
        hikari-unfair-holders) hikari_config hikari-unfair-holders "    - type: fair-borrowing" \
            '/^  extensions:$/a\    - type: holders
/^    - type: fair-borrowing/d' ;;
        tomcat-default|tomcat-variable) echo dropwizard-hikari-example/example-tomcat.yml ;;
        tomcat-safe) echo dropwizard-hikari-example/example-tomcat-safe.yml ;;
        *) echo "unknown configuration $1" >&2; exit 1 ;;
    esac
}

pool_settings() {
    local config=$1 size=$2
    case "$config" in
        hikari|hikari-unfair|hikari-admission|hikari-holders|hikari-unfair-holders)
            echo "-Ddw.hikari.maxSize=$size -Ddw.hikari.minSize=$size" ;;
        hikari-variable) echo "-Ddw.hikari.maxSize=$size -Ddw.hikari.minSize=1 -Ddw.hikari.minIdleTime=10s" ;;
        tomcat-variable) echo "-Ddw.database.maxSize=$size -Ddw.database.minSize=1 -Ddw.database.initialSize=1" ;;
        *) echo "-Ddw.database.maxSize=$size -Ddw.database.minSize=$size -Ddw.database.initialSize=$size" ;;
    esac
}

start_app() {
    local config=$1 size=$2 threads=$3
    local max_threads=$(( threads + JETTY_OVERHEAD ))
    # every start's log is kept, each after a line naming it, so a failure can be read whichever start it was
    echo "== $(date -u +%T) $config: pool $size, $threads request threads" >> "$OUT/app.log"
    if [ "$max_threads" -lt 4 ]; then
        echo "$threads request threads: Dropwizard needs maxThreads >= 4, i.e. at least 2 request threads" >&2
        exit 1
    fi
    # shellcheck disable=SC2046
    QUESTIONS_DB_URL="$JDBC_URL" taskset -c 0 "$APP_JAVA" -XX:+UseSerialGC $(pool_settings "$config" "$size") \
        -Ddw.server.maxThreads=$max_threads -Ddw.server.minThreads=$max_threads $SERVER_SETTINGS \
        -Ddw.server.applicationConnectors[0].port=$APP_PORT -Ddw.server.adminConnectors[0].port=$ADMIN_PORT \
        -Ddw.logging.level=WARN -jar "$APP_JAR" server "$(config_file "$config")" >> "$OUT/app.log" 2>&1 &
    app_pid=$!
    for _ in $(seq 1 120); do
        if curl -fs "http://127.0.0.1:$ADMIN_PORT/healthcheck" >/dev/null 2>&1; then
            return 0
        fi
        if ! kill -0 "$app_pid" 2>/dev/null; then
            echo "the application exited; see $OUT/app.log" >&2
            tail -20 "$OUT/app.log" >&2
            exit 1
        fi
        sleep 0.5
    done
    echo "the application did not become healthy in 60 s; see $OUT/app.log" >&2
    exit 1
}

# served_none LINE FIELD: whether the CSV line's requests (its FIELD-th field) are none. A quick run asks whether
# requests are served, not how fast: on a loaded machine every request of a 2 s run can still be in flight at its end,
# which wrk does not count, so quick mode measures such a run again, for twice as long, up to QUICK_ATTEMPTS times.
QUICK_ATTEMPTS=${QUICK_ATTEMPTS:-4}
served_none() {
    $quick && [ "$(cut -d, -f"$2" <<< "$1")" = 0 ]
}

# load LUA URL: a warm-up, then the measured run; prints the reporter's CSV line without its tag
load() {
    local script=$1 url=$2 duration=$DURATION line attempt
    taskset -c 1 wrk -t1 -c"$CONNECTIONS" --timeout "$WRK_TIMEOUT" -d"${WARMUP}s" -s "$script" "$url" >/dev/null
    for attempt in $(seq 1 "$QUICK_ATTEMPTS"); do
        line=$(taskset -c 1 wrk -t1 -c"$CONNECTIONS" --timeout "$WRK_TIMEOUT" -d"${duration}s" -s "$script" "$url" \
            | grep '^CSV,' | cut -d, -f2-)
        served_none "$line" 4 || break
        echo "no request completed in a ${duration} s run ($line); measuring again (attempt $((attempt + 1)))" >&2
        duration=$(( duration * 2 ))
    done
    echo "$line"
}

prepare_data
# The seed's query returned 9 rows; ask for an owner with 9 questions in this data set (deterministic per seed).
OWNER=${OWNER:-$(psql -tA "$PGURL" -c "SELECT ownerUserId FROM $SCHEMA.questions WHERE ownerUserId IS NOT NULL \
    GROUP BY ownerUserId HAVING COUNT(*) = 9 ORDER BY ownerUserId LIMIT 1")}
if [ -z "$OWNER" ]; then
    echo "no owner with 9 questions in the data set; set OWNER" >&2
    exit 1
fi
echo "owner: $OWNER"
# the "many small selects" endpoint asks for ten such owners at once
OWNERS=${OWNERS:-$(psql -tA "$PGURL" -c "SELECT string_agg(ownerUserId::text, ',') FROM (SELECT ownerUserId \
    FROM $SCHEMA.questions WHERE ownerUserId IS NOT NULL GROUP BY ownerUserId HAVING COUNT(*) = 9 \
    ORDER BY ownerUserId LIMIT 10) AS owners")}
echo "owners for by-owners: $OWNERS"
header="config,pool_size,max_threads,requests,mean_ms,stdev_ms,p50_ms,p90_ms,p99_ms,errors,requests_per_s"
grid="$OUT/grid.csv"
echo "run,$header" > "$grid"

echo "== grid: configs [$CONFIGS] x pools [$POOLS] x request threads [$THREADS], $RUNS run(s)"
for run in $(seq 1 "$RUNS"); do
    # rotate the order of configurations from run to run, so no configuration always goes first
    configs=($CONFIGS)
    shift_by=$(( (run - 1) % ${#configs[@]} ))
    configs=("${configs[@]:$shift_by}" "${configs[@]:0:$shift_by}")
    for pool in $POOLS; do
        for threads in $THREADS; do
            for config in "${configs[@]}"; do
                start_app "$config" "$pool" "$threads"
                line=$(CONFIG=$config POOL_SIZE=$pool MAX_THREADS=$threads \
                    load benchmarks/http/report.lua "http://127.0.0.1:$APP_PORT/questions?user=$OWNER")
                stop_app
                echo "$run,$line" | tee -a "$grid"
            done
        done
    done
done

# mixed PORT_URL: half the connections on the questions endpoint and half on /pause, two wrk processes at once, after
# a warm-up of both; prints one CSV line per endpoint
mixed_load() {
    local questions="http://127.0.0.1:$APP_PORT/questions?user=$OWNER"
    local pause="http://127.0.0.1:$APP_PORT/pause?ms=$PAUSE_MS"
    local half=$(( CONNECTIONS / 2 ))
    taskset -c 1 wrk -t1 -c"$half" --timeout "$WRK_TIMEOUT" -d"${WARMUP}s" "$questions" >/dev/null &
    local warm=$!
    taskset -c 1 wrk -t1 -c"$half" --timeout "$WRK_TIMEOUT" -d"${WARMUP}s" "$pause" >/dev/null
    wait "$warm"
    ENDPOINT=questions taskset -c 1 wrk -t1 -c"$half" --timeout "$WRK_TIMEOUT" -d"${DURATION}s" -s benchmarks/http/report.lua "$questions" \
        > "$OUT/mixed-questions.out" &
    local measured=$!
    ENDPOINT=pause taskset -c 1 wrk -t1 -c"$half" --timeout "$WRK_TIMEOUT" -d"${DURATION}s" -s benchmarks/http/report.lua "$pause" \
        > "$OUT/mixed-pause.out"
    wait "$measured"
    for endpoint in questions pause; do
        echo "$endpoint,$(grep '^CSV,' "$OUT/mixed-$endpoint.out" | cut -d, -f2-)"
        rm -f "$OUT/mixed-$endpoint.out"
    done
}

if [ -n "$MIXED_CONFIGS" ]; then
    read -r mixed_pool mixed_threads <<< "$MIXED_POINT"
    mixed="$OUT/mixed.csv"
    echo "run,endpoint,$header" > "$mixed"
    echo "== mixed workload at pool $mixed_pool, $mixed_threads request threads: [$MIXED_CONFIGS], $RUNS run(s)"
    for run in $(seq 1 "$RUNS"); do
        configs=($MIXED_CONFIGS)
        shift_by=$(( (run - 1) % ${#configs[@]} ))
        configs=("${configs[@]:$shift_by}" "${configs[@]:0:$shift_by}")
        for config in "${configs[@]}"; do
            start_app "$config" "$mixed_pool" "$mixed_threads"
            for attempt in $(seq 1 "$QUICK_ATTEMPTS"); do
                lines=$(CONFIG=$config POOL_SIZE=$mixed_pool MAX_THREADS=$mixed_threads mixed_load)
                served=true
                while read -r line; do
                    ! served_none "$line" 5 || served=false
                done <<< "$lines"
                $served && break
                echo "an endpoint of the mixed workload completed no request ($lines); measuring again" >&2
            done
            while read -r line; do
                echo "$run,$line" | tee -a "$mixed"
            done <<< "$lines"
            stop_app
        done
    done
fi

if $SKIP_EXTRAS; then
    python3 benchmarks/report/http_report.py "$OUT"
    echo "wrote $OUT/report.md"
    exit 0
fi

read -r endpoint_pool endpoint_threads <<< "$ENDPOINT_POINT"
endpoints="$OUT/endpoints.csv"
echo "config,endpoint,max_threads,requests,mean_ms,stdev_ms,p50_ms,p90_ms,p99_ms,errors,requests_per_s" > "$endpoints"
echo "== endpoints at pool $endpoint_pool, $endpoint_threads request threads; and a non-fixed pool"
for config in ${ENDPOINT_CONFIGS:-$CONFIGS} hikari-variable tomcat-variable; do
    start_app "$config" "$endpoint_pool" "$endpoint_threads"
    for endpoint in owner by-owners large write transaction; do
        CONFIG=$config ENDPOINT=$endpoint ROWS=$ROWS OWNER=$OWNER OWNERS=$OWNERS MAX_THREADS=$endpoint_threads \
            load benchmarks/http/endpoint.lua "http://127.0.0.1:$APP_PORT" | tee -a "$endpoints"
        if [[ "$config" == *variable ]]; then
            break
        fi
    done
    stop_app
done

ceiling="$OUT/ceiling.csv"
echo "threads,seconds,queries,queries_per_s" > "$ceiling"
echo "== ceiling: the query over plain JDBC, no HTTP, no pool"
for threads in $CEILING_THREADS; do
    taskset -c 0 java -cp "$BENCH_JAR" io.github.dropwizardhikari.benchmarks.JdbcCeiling \
        "$JDBC_URL" postgres "$threads" "$DURATION" "$OWNER" | tee -a "$ceiling"
done

python3 benchmarks/report/http_report.py "$OUT"
echo "wrote $OUT/report.md"
