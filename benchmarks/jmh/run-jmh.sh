#!/usr/bin/env bash
# Runs the pool benchmarks (JMH) for every pool, against the stub driver and the local PostgreSQL, at each
# thread count, and writes JSON per thread count plus a Markdown table with errors.
#
#   bash benchmarks/jmh/run-jmh.sh              # every pool and thread count (about 17 minutes with six pools;
#                                               # each of the two raw-hikari tracker variants adds about a sixth)
#   bash benchmarks/jmh/run-jmh.sh --overhead   # one thread, the bundle against raw HikariCP and both Tomcat
#                                               # configurations, 4 forks: the tight ratios (about 12 minutes)
#   bash benchmarks/jmh/run-jmh.sh --gate       # fair borrowing on and off (hikari-fair-borrowing, hikari) beside
#                                               # raw HikariCP with and without metrics and tomcat-safe, threads
#                                               # 1, 4, 8, FORKS forks (4)
#   bash benchmarks/jmh/run-jmh.sh --holders    # the holders extension on and off (hikari-holders, hikari) at 4
#                                               # threads, FORKS forks (4), DATABASES (stub,postgres)
#   bash benchmarks/jmh/run-jmh.sh --floor      # what the parts of a borrow cost alone (CostFloor: the fair
#                                               # semaphore, a clock reading, Metrics' timer, the tracker), in
#                                               # ns, one thread, FORKS forks (4); about 6 minutes
#   bash benchmarks/jmh/run-jmh.sh --quick      # a smoke test: stub driver, 1 thread, a fraction of a second
#
# Environment: BENCH_POSTGRES_URL (default jdbc:postgresql://127.0.0.1:5432/test), OUT (results directory:
# benchmarks/results/jmh, benchmarks/results/jmh-overhead for --overhead, benchmarks/results/jmh-gate for --gate,
# benchmarks/results/jmh-holders for --holders),
# FORKS and DATABASES (--gate and --holders only: stub,postgres by default; DATABASES=stub halves the run).
set -euo pipefail
cd "$(dirname "$0")/../.."

mode=full
case "${1:-}" in
    --quick) mode=quick ;;
    --overhead) mode=overhead ;;
    --gate) mode=gate ;;
    --holders) mode=holders ;;
    --floor) mode=floor ;;
    "") ;;
    *) echo "usage: run-jmh.sh [--quick | --overhead | --gate | --holders | --floor]" >&2; exit 2 ;;
esac
jar=benchmarks/target/benchmarks.jar
postgres=${BENCH_POSTGRES_URL:-jdbc:postgresql://127.0.0.1:5432/test}

if [ ! -f "$jar" ]; then
    echo "missing $jar: build it with ./mvnw -B -q -pl benchmarks -am package -DskipTests" >&2
    exit 1
fi

jvm_flags=()
if [ "$mode" = floor ]; then
    out=${OUT:-benchmarks/results/jmh-cost-floor}
    mkdir -p "$out"
    java -jar "$jar" CostFloor -wi 3 -w 1s -i 5 -r 1s -f "${FORKS:-4}" -t 1 -rf json -rff "$out/cost-floor.json" \
        | tee "$out/cost-floor.txt"
    echo "wrote $out/cost-floor.json and cost-floor.txt"
    exit 0
fi
case $mode in
    quick)
        out=${OUT:-benchmarks/results/jmh}
        threads="1"
        forks_at_one=1
        settings=(-wi 1 -w 200ms -i 1 -r 200ms -p database=stub)
        # JMH refuses to start while another JMH run holds /tmp/jmh.lock, which protects measurements from each
        # other; the smoke test measures nothing, so it must not fail (or wait) because a real run is going on
        jvm_flags=(-Djmh.ignoreLock=true)
        ;;
    overhead)
        # The issue's goal is a ratio within 5%: with 3 iterations JMH's 99.9% error is about 30 standard errors
        # wide, so this mode spends its time on one thread (the stable figure on 2 cores) and on many samples:
        # 4 forks x 5 iterations, for the four pools the ratios are about.
        out=${OUT:-benchmarks/results/jmh-overhead}
        threads="1"
        forks_at_one=4
        settings=(-wi 5 -w 1s -i 5 -r 1s -p pool=raw-hikari,hikari,tomcat-default,tomcat-safe)
        ;;
    gate)
        # The issue's comparison: the gate's cost at one thread (goal: at most 3%) and the bundle at 4 and 8 threads
        # against tomcat-safe, on the stub and on PostgreSQL. Every thread count gets FORKS forks.
        out=${OUT:-benchmarks/results/jmh-gate}
        threads="1 4 8"
        forks_at_one=${FORKS:-4}
        forks_at_many=${FORKS:-4}
        gate_pools=hikari-fair-borrowing,hikari,raw-hikari-no-metrics,raw-hikari-noop-tracker,raw-hikari
        gate_pools+=,raw-hikari-bundle-metrics,tomcat-safe
        settings=(-wi 3 -w 1s -i 4 -r 1s -p pool="$gate_pools"
            -p database="${DATABASES:-stub,postgres}")
        ;;
    holders)
        # The holders extension's cost beside the core alone at 4 threads (goal: within 10%).
        out=${OUT:-benchmarks/results/jmh-holders}
        threads="4"
        forks_at_many=${FORKS:-4}
        settings=(-wi 3 -w 1s -i 4 -r 1s -p pool=hikari,hikari-holders -p database="${DATABASES:-stub,postgres}")
        ;;
    full)
        out=${OUT:-benchmarks/results/jmh}
        # 40 threads is more than the pool's 32 connections: contention
        threads="1 2 4 8 40"
        # One thread is the stable figure on 2 cores (more threads than cores measure the scheduler too), so it
        # gets two forks: the error then includes the fork-to-fork spread, not only the spread inside one JVM.
        forks_at_one=2
        # 3 s of warm-up and 4 x 1 s measured per fork; the JIT settles on these small loops within a second or two.
        settings=(-wi 3 -w 1s -i 4 -r 1s)
        ;;
esac
mkdir -p "$out"
rm -f "$out"/jmh-t*.json

for t in $threads; do
    forks=${forks_at_many:-1}
    if [ "$t" = 1 ]; then
        forks=$forks_at_one
    fi
    echo "== JMH with $t thread(s), $forks fork(s)"
    java "${jvm_flags[@]}" -Dbench.postgres.url="$postgres" -jar "$jar" "ConnectionCycle|StatementCycle" "${settings[@]}" \
        -f "$forks" -t "$t" -rf json -rff "$out/jmh-t$t.json"
done
if [ "$mode" = quick ]; then
    # the cost-floor parts too, so that the benchmark is known to run
    java "${jvm_flags[@]}" -jar "$jar" CostFloor -wi 1 -w 200ms -i 1 -r 200ms -f 1 -rf json -rff "$out/cost-floor.json"
fi

if command -v gnuplot >/dev/null; then
    python3 benchmarks/report/jmh_report.py "$out" --chart "$out/jmh.png" > "$out/jmh.md"
else
    python3 benchmarks/report/jmh_report.py "$out" > "$out/jmh.md"
fi
echo "wrote $out/jmh.md"
