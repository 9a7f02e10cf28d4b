#!/usr/bin/env bash
# Virtual-thread borrowers on the stub driver (VirtualBorrowers): for each cell of borrowers x pool size x hold
# time, each pool configuration in its own JVM, in an order rotated per cell; one row each in $OUT/virtual.tsv.
#
#   bash benchmarks/virtual/run-virtual.sh           # the full grid behind docs/virtual-threads.md
#   bash benchmarks/virtual/run-virtual.sh --quick   # a smoke test: one small cell, 1 s + 1 s
#
# Settings (environment): JAVA (a JDK 21+ java; default .ci/find-jdk 25), CONFIGS, BORROWERS, POOLS, HOLDS (ms),
# WARMUP and MEASURE (seconds), OUT (results directory), THREADS (virtual, the default, or platform).
# Configurations: hikari-fair-borrowing (the fair-borrowing extension named), hikari (the core alone),
# raw-hikari-no-metrics (HikariCP's own hand-off), tomcat-safe and tomcat-default (Dropwizard's Tomcat pool).
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "${1:-}" = "--quick" ]; then
    CONFIGS=${CONFIGS:-"hikari-fair-borrowing hikari"}
    BORROWERS=${BORROWERS:-"200"}
    POOLS=${POOLS:-"10"}
    HOLDS=${HOLDS:-"0.2"}
    WARMUP=${WARMUP:-1}
    MEASURE=${MEASURE:-1}
fi
CONFIGS=${CONFIGS:-"hikari-fair-borrowing hikari raw-hikari-no-metrics tomcat-safe"}
THREADS=${THREADS:-virtual}
BORROWERS=${BORROWERS:-"1000 10000"}
POOLS=${POOLS:-"10 50"}
HOLDS=${HOLDS:-"0.2 2"}
WARMUP=${WARMUP:-3}
MEASURE=${MEASURE:-8}
OUT=${OUT:-benchmarks/results/virtual/$(date -u +%Y%m%dT%H%M%SZ)}
JAVA=${JAVA:-$(.ci/find-jdk 25)/bin/java}
jar=benchmarks/target/benchmarks.jar
if [ ! -f "$jar" ]; then
    echo "missing $jar: build it with ./mvnw -B -q -pl benchmarks -am package -DskipTests" >&2
    exit 1
fi
mkdir -p "$OUT"
echo "virtual-thread borrowers: $("$JAVA" -version 2>&1 | head -1); load average before: $(cut -d' ' -f1-3 /proc/loadavg)" \
    | tee "$OUT/run.txt"

read -r -a configs <<< "$CONFIGS"
cell=0
for borrowers in $BORROWERS; do
    for pool in $POOLS; do
        for hold in $HOLDS; do
            for i in "${!configs[@]}"; do
                config=${configs[$(( (i + cell) % ${#configs[@]} ))]}
                "$JAVA" -XX:+UseSerialGC -Xmx2g -Dborrowers.threads="$THREADS" -cp "$jar" \
                    io.github.dropwizardhikari.benchmarks.VirtualBorrowers \
                    "$OUT/virtual.tsv" "$WARMUP" "$MEASURE" "$config" "$borrowers" "$pool" "$hold" 2>>"$OUT/stderr.txt"
            done
            cell=$(( cell + 1 ))
        done
    done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/run.txt"
echo "rows in $OUT/virtual.tsv"
