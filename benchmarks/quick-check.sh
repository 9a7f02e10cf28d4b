#!/usr/bin/env bash
# CI's smoke test of the benchmark harness: runs JMH and the HTTP grid in quick mode into a scratch directory and
# fails unless every expected output is there with data. It asserts that the harness works, never a number.
# Needs the jars from `./mvnw verify` (or package), PostgreSQL on 127.0.0.1:5432, wrk and gnuplot (installed
# here with apt-get when missing and running as root).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v gnuplot >/dev/null || missing+=(gnuplot-nox)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "benchmark tools missing: ${missing[*]} (apt-get install -y ${missing[*]})" >&2
        exit 1
    fi
fi

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

OUT="$scratch/jmh" bash benchmarks/jmh/run-jmh.sh --quick > "$scratch/jmh.log" 2>&1 || {
    tail -30 "$scratch/jmh.log" >&2
    exit 1
}
OUT="$scratch/http" bash benchmarks/http/run-grid.sh --quick > "$scratch/http.log" 2>&1 || {
    tail -30 "$scratch/http.log" >&2
    exit 1
}

python3 - "$scratch" <<'PY'
import csv
import json
import os
import sys

scratch = sys.argv[1]
problems = []

results = json.load(open(os.path.join(scratch, "jmh", "jmh-t1.json")))
pools = {(r["benchmark"].split(".")[-2], r["params"]["pool"]) for r in results if r["primaryMetric"]["score"] > 0}
if len(pools) != 10:
    problems.append("JMH: expected 2 benchmarks x 5 pools with a score, got %d" % len(pools))
table = open(os.path.join(scratch, "jmh", "jmh.md")).read().splitlines()
if len([line for line in table if line.startswith("| ConnectionCycle") or line.startswith("| StatementCycle")]) != 2:
    problems.append("JMH: the Markdown table lacks its rows")

def rows(name):
    with open(os.path.join(scratch, "http", name)) as handle:
        return list(csv.DictReader(handle))

grid = rows("grid.csv")
if {row["config"] for row in grid} != {"hikari", "tomcat-safe"}:
    problems.append("grid: expected a row for hikari and tomcat-safe, got %s" % grid)
for row in grid:
    if int(row["requests"]) == 0 or int(row["errors"]) != 0:
        problems.append("grid: %s served %s requests with %s errors" % (row["config"], row["requests"], row["errors"]))
endpoints = rows("endpoints.csv")
if len(endpoints) != 12 or any(int(row["requests"]) == 0 for row in endpoints):
    problems.append("endpoints: expected 12 rows with requests, got %s" % endpoints)
ceiling = rows("ceiling.csv")
if not ceiling or float(ceiling[0]["queries_per_s"]) <= 0:
    problems.append("ceiling: no queries measured")
report = open(os.path.join(scratch, "http", "report.md")).read()
for section in ("## Every cell", "## Best and worst", "## Other endpoints", "## Ceiling", "## Charts"):
    if section not in report:
        problems.append("report: missing section " + section)
for config in ("hikari", "tomcat-safe"):
    if not os.path.getsize(os.path.join(scratch, "http", "img", config + ".png")):
        problems.append("charts: empty %s.png" % config)

if problems:
    print("benchmark quick check FAILED:\n- " + "\n- ".join(problems))
    sys.exit(1)
print("benchmark quick check: JMH (10 results), HTTP grid (2 cells), 12 endpoint runs, ceiling, report and charts")
PY
