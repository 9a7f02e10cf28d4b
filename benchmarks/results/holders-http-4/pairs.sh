#!/usr/bin/env bash
# Alternating HTTP runs of the grid's application (pool 8, 32 request threads, as benchmarks/http/run-grid.sh runs
# it: application on CPU 0, PostgreSQL and wrk on CPU 1), with and without the holders extension, and the same
# configuration twice (`-copy`), so that the spread between two runs of one configuration is measured beside the
# difference the extension makes. Per run, besides wrk's figures: the application's CPU ticks and context switches,
# CPU 1's idle ticks and the young collections, over the measured 20 s.
# Run from the repository root after ./mvnw -B -q -pl dropwizard-hikari-example -am package -DskipTests; the data
# set is the grid's (bench schema; loaded if missing). Output: $OUT/pairs.csv.
set -euo pipefail
CONFIGS=${CONFIGS:-"hikari-unfair hikari-unfair-holders hikari-unfair-copy hikari hikari-holders hikari-copy"}
RUNS=${RUNS:-4}; WARMUP=${WARMUP:-30}; DURATION=${DURATION:-20}; POOL=${POOL:-8}; THREADS=${THREADS:-32}
OUT=${OUT:-target/holders-http-pairs}; JAR=${JAR:-dropwizard-hikari-example/target/questions-app.jar}
SCHEMA=bench; PGURL=postgresql://postgres@127.0.0.1:5432/test
JDBC_URL="jdbc:postgresql://127.0.0.1:5432/test?currentSchema=$SCHEMA"
APP_PORT=18080; ADMIN_PORT=18081
mkdir -p "$OUT"
example=dropwizard-hikari-example/example-postgres.yml
cp $example "$OUT/hikari.yml"
cp $example "$OUT/hikari-copy.yml"
sed '/^  extensions:$/a\    - type: holders' $example > "$OUT/hikari-holders.yml"
sed '/^    - type: fair-borrowing/d' $example > "$OUT/hikari-unfair.yml"
cp "$OUT/hikari-unfair.yml" "$OUT/hikari-unfair-copy.yml"
sed -e '/^  extensions:$/a\    - type: holders' -e '/^    - type: fair-borrowing/d' $example \
    > "$OUT/hikari-unfair-holders.yml"
have=$(psql -tA "$PGURL" -c "SELECT COUNT(*) FROM $SCHEMA.questions" 2>/dev/null || echo 0)
if [ "$have" != 100000 ]; then
    psql -q "$PGURL" -c "CREATE SCHEMA IF NOT EXISTS $SCHEMA"
    java -jar "$JAR" generate-questions --rows 100000 --owners 10001 --seed 42 "$OUT/q.csv"
    QUESTIONS_DB_URL="$JDBC_URL" java -jar "$JAR" load-questions $example "$OUT/q.csv"
    rm -f "$OUT/q.csv"
fi
OWNER=$(psql -tA "$PGURL" -c "SELECT ownerUserId FROM $SCHEMA.questions WHERE ownerUserId IS NOT NULL \
    GROUP BY ownerUserId HAVING COUNT(*) = 9 ORDER BY ownerUserId LIMIT 1")
for pid in $(pgrep -u postgres postgres || true); do taskset -a -p -c 1 "$pid" >/dev/null 2>&1 || true; done
app=""
cleanup() {
    [ -n "$app" ] && kill "$app" 2>/dev/null || true
    for pid in $(pgrep -u postgres postgres || true); do taskset -a -p -c 0-1 "$pid" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT
# the application's CPU ticks, its threads' context switches, CPU 1's idle ticks
snap() {
    local cpu cs idle
    cpu=$(awk '{print $14 + $15}' "/proc/$1/stat")
    cs=$(cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ {s += $2} END {print s}')
    idle=$(awk '$1 == "cpu1" {print $5}' /proc/stat)
    echo "$cpu $cs $idle"
}
young() {
    curl -s "http://127.0.0.1:$ADMIN_PORT/metrics" | python3 -c 'import json, sys
g = json.load(sys.stdin)["gauges"]
print(sum(v["value"] for k, v in g.items() if k.startswith("jvm.gc.") and k.endswith(".count") and "MarkSweep" not in k))'
}
echo "run,config,requests,mean_ms,stdev_ms,p50_ms,p90_ms,p99_ms,errors,requests_per_s,app_cpu_ticks,app_context_switches,cpu1_idle_ticks,young_gcs" \
    > "$OUT/pairs.csv"
for run in $(seq 1 "$RUNS"); do
    # rotate the order from run to run, so that no configuration always follows the same one
    configs=($CONFIGS)
    shift_by=$(( (run - 1) % ${#configs[@]} ))
    configs=("${configs[@]:$shift_by}" "${configs[@]:0:$shift_by}")
    for config in "${configs[@]}"; do
        QUESTIONS_DB_URL="$JDBC_URL" taskset -c 0 java -XX:+UseSerialGC -Ddw.hikari.maxSize=$POOL \
            -Ddw.hikari.minSize=$POOL -Ddw.server.maxThreads=$((THREADS + 2)) -Ddw.server.minThreads=$((THREADS + 2)) \
            -Ddw.server.applicationConnectors[0].port=$APP_PORT -Ddw.server.adminConnectors[0].port=$ADMIN_PORT \
            -Ddw.logging.level=WARN -jar "$JAR" server "$OUT/$config.yml" > "$OUT/app.log" 2>&1 &
        app=$!
        for _ in $(seq 1 120); do
            curl -fs "http://127.0.0.1:$ADMIN_PORT/healthcheck" >/dev/null 2>&1 && break
            sleep 0.5
        done
        url="http://127.0.0.1:$APP_PORT/questions?user=$OWNER"
        taskset -c 1 wrk -t1 -c64 --timeout 2s -d"${WARMUP}s" "$url" >/dev/null
        read -r c0 x0 i0 <<< "$(snap $app)"
        g0=$(young)
        line=$(CONFIG=$config POOL_SIZE=$POOL MAX_THREADS=$THREADS taskset -c 1 wrk -t1 -c64 --timeout 2s \
            -d"${DURATION}s" -s benchmarks/http/report.lua "$url" | grep '^CSV,' | cut -d, -f5-)
        read -r c1 x1 i1 <<< "$(snap $app)"
        g1=$(young)
        kill "$app"
        wait "$app" 2>/dev/null || true
        app=""
        echo "$run,$config,$line,$((c1 - c0)),$((x1 - x0)),$((i1 - i0)),$((g1 - g0))" | tee -a "$OUT/pairs.csv"
    done
done
