#!/usr/bin/env bash
# CI's smoke test of the benchmark harness: runs JMH and the HTTP grid in quick mode into a scratch directory and
# fails unless every expected output is there with data. It asserts that the harness works, never a number.
# Needs the jars from `./mvnw verify` (or package), PostgreSQL on 127.0.0.1:5432 (PGURL), wrk and gnuplot.
#
#   bash benchmarks/quick-check.sh                    # fails, printing the install command, if a tool is missing
#   bash benchmarks/quick-check.sh --install-missing  # first installs missing tools with apt-get (as root; CI)
#
# Each run takes a free port pair and a schema of its own (bench_quick_<random>, dropped at the end), so runs on
# one machine and one PostgreSQL server collide neither with each other nor with a full benchmark run. To choose the
# ports instead (a firewall, a port-forward), give them in the environment:
#
#   QUICK_CHECK_APP_PORT=28080 QUICK_CHECK_ADMIN_PORT=28081 bash benchmarks/quick-check.sh   # admin: app + 1 if unset
set -euo pipefail
cd "$(dirname "$0")/.."

install=false
case "${1:-}" in
    --install-missing) install=true ;;
    "") ;;
    *) echo "usage: quick-check.sh [--install-missing]" >&2; exit 2 ;;
esac

missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v gnuplot >/dev/null || missing+=(gnuplot-nox)
if [ ${#missing[@]} -gt 0 ]; then
    if ! $install; then
        echo "benchmark tools missing: ${missing[*]}. Install them with:" >&2
        echo "    sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
        echo "or let this script do it: bash benchmarks/quick-check.sh --install-missing (as root)" >&2
        exit 1
    fi
    if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
        echo "--install-missing needs root and apt-get; install ${missing[*]} yourself" >&2
        exit 1
    fi
    echo "installing the missing benchmark tools: apt-get install -y ${missing[*]}"
    apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Unless given, a free port for the application, whose next port (the admin connector) is free too, below the kernel's
# ephemeral range: a port in that range can be taken by any outgoing connection (a JDBC socket, wrk's) between one
# start of the application and the next, and the next start then fails to bind.
app_port=${QUICK_CHECK_APP_PORT:-$(python3 -c '
import random
import socket

def free(port):
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("0.0.0.0", port))
            return True
        except OSError:
            return False

try:
    with open("/proc/sys/net/ipv4/ip_local_port_range") as ports:
        ephemeral = int(ports.read().split()[0])
except OSError:
    ephemeral = 32768
while True:
    port = random.randrange(10000, ephemeral - 2)
    if free(port) and free(port + 1):
        print(port)
        break
')}
is_port() {
    [[ $2 =~ ^[1-9][0-9]{0,4}$ ]] && [ "$2" -le 65535 ] || { echo "$1 must be a port (1-65535), got '$2'" >&2; exit 2; }
}
is_port QUICK_CHECK_APP_PORT "$app_port"
admin_port=${QUICK_CHECK_ADMIN_PORT:-$((app_port + 1))}
is_port QUICK_CHECK_ADMIN_PORT "$admin_port"
[ "$admin_port" != "$app_port" ] || { echo "QUICK_CHECK_ADMIN_PORT must differ from QUICK_CHECK_APP_PORT" >&2; exit 2; }
schema="bench_quick_$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
pgurl=${PGURL:-postgresql://postgres@127.0.0.1:5432/test}

# Every output and log of the run stays under target/quick-check/ (ignored by git), a failed run's included.
scratch=target/quick-check/$schema
mkdir -p "$scratch"
cleanup() {
    psql -q "$pgurl" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true
}
trap cleanup EXIT
echo "benchmark quick check on ports $app_port and $admin_port, schema $schema; outputs and logs in $scratch"

# failed WHAT LOG: prints the end of the harness's log and of the applications' log, and where both are kept
failed() {
    echo "benchmark quick check FAILED in $1; the end of $2:" >&2
    tail -30 "$2" >&2
    if [ -s "$scratch/http/app.log" ]; then
        echo "the end of the applications' log, $scratch/http/app.log (every start, each after a '==' line):" >&2
        tail -40 "$scratch/http/app.log" >&2
    fi
    echo "every output and log of this run is kept in $scratch" >&2
    exit 1
}
OUT="$scratch/jmh" bash benchmarks/jmh/run-jmh.sh --quick > "$scratch/jmh.log" 2>&1 || failed "the JMH run" "$scratch/jmh.log"
OUT="$scratch/http" APP_PORT=$app_port ADMIN_PORT=$admin_port SCHEMA=$schema PGURL=$pgurl bash benchmarks/http/run-grid.sh --quick \
    > "$scratch/http.log" 2>&1 || failed "the HTTP grid" "$scratch/http.log"

python3 - "$scratch" <<'PY'
import csv
import json
import os
import sys

scratch = sys.argv[1]
problems = []

results = json.load(open(os.path.join(scratch, "jmh", "jmh-t1.json")))
pools = {(r["benchmark"].split(".")[-2], r["params"]["pool"]) for r in results if r["primaryMetric"]["score"] > 0}
if len(pools) != 18:
    problems.append("JMH: expected 2 benchmarks x 9 pools with a score, got %d" % len(pools))
floor = json.load(open(os.path.join(scratch, "jmh", "cost-floor.json")))
if len([r for r in floor if r["primaryMetric"]["score"] > 0]) != 11:
    problems.append("JMH: expected the 11 CostFloor parts with a score, got %d" % len(floor))
table = open(os.path.join(scratch, "jmh", "jmh.md")).read().splitlines()
if len([line for line in table if line.startswith("| ConnectionCycle") or line.startswith("| StatementCycle")]) != 2:
    problems.append("JMH: the Markdown table lacks its rows")

def rows(name):
    with open(os.path.join(scratch, "http", name)) as handle:
        return list(csv.DictReader(handle))

grid = rows("grid.csv")
grid_configs = {"hikari", "hikari-unfair", "hikari-admission", "tomcat-safe"}
if {row["config"] for row in grid} != grid_configs:
    problems.append("grid: expected a row for each of %s, got %s" % (sorted(grid_configs), grid))
for row in grid:
    if int(row["requests"]) == 0 or int(row["errors"]) != 0:
        problems.append("grid: %s served %s requests with %s errors" % (row["config"], row["requests"], row["errors"]))
endpoints = rows("endpoints.csv")
if len(endpoints) != 12 or any(int(row["requests"]) == 0 for row in endpoints):
    problems.append("endpoints: expected 12 rows with requests, got %s" % endpoints)
mixed = rows("mixed.csv")
if {(row["config"], row["endpoint"]) for row in mixed} != {(config, endpoint) for config in
        ("hikari", "hikari-admission", "tomcat-safe") for endpoint in ("questions", "pause")}:
    problems.append("mixed: expected both endpoints for hikari, hikari-admission and tomcat-safe, got %s" % mixed)
for row in mixed:
    if int(row["requests"]) == 0 or int(row["errors"]) != 0:
        problems.append("mixed: %s %s served %s requests with %s errors" % (row["config"], row["endpoint"],
                                                                           row["requests"], row["errors"]))
ceiling = rows("ceiling.csv")
if not ceiling or float(ceiling[0]["queries_per_s"]) <= 0:
    problems.append("ceiling: no queries measured")
report = open(os.path.join(scratch, "http", "report.md")).read()
for section in ("## Every cell", "## Best and worst", "## The fair borrow gate's goal", "## Mixed workload",
                "## Other endpoints", "## Ceiling", "## Charts"):
    if section not in report:
        problems.append("report: missing section " + section)
for chart in ("hikari", "tomcat-safe", "mixed"):
    if not os.path.getsize(os.path.join(scratch, "http", "img", chart + ".png")):
        problems.append("charts: empty %s.png" % chart)

if problems:
    print("benchmark quick check FAILED:\n- " + "\n- ".join(problems))
    for log in ("http.log", os.path.join("http", "app.log")):
        path = os.path.join(scratch, log)
        print("the end of %s:" % path)
        print(open(path).read()[-4000:] if os.path.exists(path) else "(not written)")
    print("every output and log of this run is kept in %s" % scratch)
    sys.exit(1)
print("benchmark quick check: JMH (18 results, 11 cost-floor parts), HTTP grid (4 configurations), mixed workload "
      "(6 rows), 12 endpoint runs, ceiling, report and charts")
PY
