#!/usr/bin/env bash
# Kept as it ran, with the paths of the machine it ran on: A.jar and B.jar are the example built from main with
# gate-order-experiment.patch applied (B) and with only its gauge (A); pairs.sh is its later, general form.
# A/B HTTP runs: VARIANTS="A:hikari A:hikari-holders B:hikari B:hikari-holders", jars /tmp/jars/<A|B>.jar
set -euo pipefail
cd /work/main
JAVA_OPTS=${JAVA_OPTS:-}; RUNS=${RUNS:-3}; WARMUP=${WARMUP:-30}; DURATION=${DURATION:-20}; POOL=${POOL:-8}; THREADS=${THREADS:-32}
OUT=${OUT:-/tmp/ab}; mkdir -p "$OUT"
SCHEMA=bench; PGURL=postgresql://postgres@127.0.0.1:5432/test
JDBC_URL="jdbc:postgresql://127.0.0.1:5432/test?currentSchema=$SCHEMA"
APP_PORT=18080; ADMIN_PORT=18081
sed '/^  extensions:$/a\    - type: holders' dropwizard-hikari-example/example-postgres.yml > $OUT/hikari-holders.yml
sed '/^    - type: fair-borrowing/d' dropwizard-hikari-example/example-postgres.yml > $OUT/hikari-unfair.yml
sed -e '/^  extensions:$/a\    - type: holders' -e '/^    - type: fair-borrowing/d' dropwizard-hikari-example/example-postgres.yml > $OUT/hikari-unfair-holders.yml
cp dropwizard-hikari-example/example-postgres.yml $OUT/hikari.yml
have=$(psql -tA "$PGURL" -c "SELECT COUNT(*) FROM $SCHEMA.questions" 2>/dev/null || echo 0)
if [ "$have" != 100000 ]; then
  psql -q "$PGURL" -c "CREATE SCHEMA IF NOT EXISTS $SCHEMA"
  java -jar /tmp/jars/A.jar generate-questions --rows 100000 --owners 10001 --seed 42 $OUT/q.csv
  QUESTIONS_DB_URL="$JDBC_URL" java -jar /tmp/jars/A.jar load-questions dropwizard-hikari-example/example-postgres.yml $OUT/q.csv
  rm -f $OUT/q.csv
fi
OWNER=$(psql -tA "$PGURL" -c "SELECT ownerUserId FROM $SCHEMA.questions WHERE ownerUserId IS NOT NULL GROUP BY ownerUserId HAVING COUNT(*) = 9 ORDER BY ownerUserId LIMIT 1")
for pid in $(pgrep -u postgres postgres || true); do taskset -a -p -c 1 "$pid" >/dev/null 2>&1 || true; done
trap 'kill $app 2>/dev/null || true; for pid in $(pgrep -u postgres postgres || true); do taskset -a -p -c 0-1 "$pid" >/dev/null 2>&1 || true; done' EXIT
echo "run,variant,requests,mean,stdev,p50,p90,p99,errors,rps,handoffs,app_cpu_ticks,app_ctxsw,cpu1_idle_ticks,gc_young,gc_old" | tee -a $OUT/ab.csv
snap() { # app CPU ticks, app context switches (all threads), CPU1 idle ticks
  local pid=$1
  local cpu=$(awk '{print $14+$15}' /proc/$pid/stat)
  local cs=$(cat /proc/$pid/task/*/status 2>/dev/null | awk '/ctxt_switches/ {s+=$2} END {print s}')
  local idle=$(awk '$1=="cpu1" {print $5}' /proc/stat)
  echo "$cpu $cs $idle"
}
for run in $(seq 1 $RUNS); do
  for v in $VARIANTS; do
    jar=/tmp/jars/${v%%:*}.jar; cfg=$OUT/${v#*:}.yml
    QUESTIONS_DB_URL="$JDBC_URL" taskset -c 0 java $JAVA_OPTS -XX:+UseSerialGC -Ddw.hikari.maxSize=$POOL -Ddw.hikari.minSize=$POOL \
      -Ddw.server.maxThreads=$((THREADS+2)) -Ddw.server.minThreads=$((THREADS+2)) \
      -Ddw.server.applicationConnectors[0].port=$APP_PORT -Ddw.server.adminConnectors[0].port=$ADMIN_PORT \
      -Ddw.logging.level=WARN -jar $jar server $cfg > $OUT/app.log 2>&1 &
    app=$!
    for _ in $(seq 1 120); do curl -fs http://127.0.0.1:$ADMIN_PORT/healthcheck >/dev/null 2>&1 && break; sleep 0.5; done
    url="http://127.0.0.1:$APP_PORT/questions?user=$OWNER"
    taskset -c 1 wrk -t1 -c64 --timeout 2s -d${WARMUP}s "$url" >/dev/null
    read c0 x0 i0 <<< "$(snap $app)"
    h0=$(curl -s http://127.0.0.1:$ADMIN_PORT/metrics | python3 -c 'import json,sys; g=json.load(sys.stdin)["gauges"]; print(sum(v["value"] for k,v in g.items() if k.endswith("GateHandoffs")))')
    line=$(CONFIG=$v POOL_SIZE=$POOL MAX_THREADS=$THREADS taskset -c 1 wrk -t1 -c64 --timeout 2s -d${DURATION}s -s benchmarks/http/report.lua "$url" | grep '^CSV,' | cut -d, -f5-)
    h1=$(curl -s http://127.0.0.1:$ADMIN_PORT/metrics | python3 -c 'import json,sys; g=json.load(sys.stdin)["gauges"]; print(sum(v["value"] for k,v in g.items() if k.endswith("GateHandoffs")))')
    read c1 x1 i1 <<< "$(snap $app)"
    g=$(curl -s http://127.0.0.1:$ADMIN_PORT/metrics | python3 -c 'import json,sys; g=json.load(sys.stdin)["gauges"]; print(g.get("jvm.gc.Copy.count",{}).get("value",-1), g.get("jvm.gc.MarkSweepCompact.count",{}).get("value",-1))')
    kill $app; wait $app 2>/dev/null || true
    echo "$run,$v,$line,$((h1-h0)),$((c1-c0)),$((x1-x0)),$((i1-i0)),${g// /,}" | tee -a $OUT/ab.csv
  done
done
