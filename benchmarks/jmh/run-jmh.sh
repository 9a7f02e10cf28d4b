#!/usr/bin/env bash
# Runs the pool benchmarks (JMH) for every pool, against the stub driver and the local PostgreSQL, at each
# thread count, and writes JSON per thread count plus a Markdown table with errors.
#
#   bash benchmarks/jmh/run-jmh.sh            # the full run behind docs/benchmarks.md (about 17 minutes)
#   bash benchmarks/jmh/run-jmh.sh --quick    # a smoke test: stub driver, 1 thread, a fraction of a second
#
# Environment: BENCH_POSTGRES_URL (default jdbc:postgresql://127.0.0.1:5432/test), OUT (results directory).
set -euo pipefail
cd "$(dirname "$0")/../.."

quick=false
[ "${1:-}" = "--quick" ] && quick=true
jar=benchmarks/target/benchmarks.jar
out=${OUT:-benchmarks/results/jmh}
postgres=${BENCH_POSTGRES_URL:-jdbc:postgresql://127.0.0.1:5432/test}

if [ ! -f "$jar" ]; then
    echo "missing $jar: build it with ./mvnw -B -q -pl benchmarks -am package -DskipTests" >&2
    exit 1
fi
mkdir -p "$out"
rm -f "$out"/jmh-t*.json

if $quick; then
    threads="1"
    settings=(-wi 1 -w 200ms -i 1 -r 200ms -p database=stub)
else
    # 40 threads is more than the pool's 32 connections: contention
    threads="1 2 4 8 40"
    # 3 s of warm-up and 4 x 1 s measured per fork; the JIT settles on these small loops within a second or two.
    settings=(-wi 3 -w 1s -i 4 -r 1s)
fi

for t in $threads; do
    # One thread is the stable figure on 2 cores (more threads than cores measure the scheduler too), so it gets
    # two forks: the error then includes the fork-to-fork spread, not only the spread inside one JVM.
    forks=1
    if ! $quick && [ "$t" = 1 ]; then
        forks=2
    fi
    echo "== JMH with $t thread(s), $forks fork(s)"
    java -Dbench.postgres.url="$postgres" -jar "$jar" "ConnectionCycle|StatementCycle" "${settings[@]}" \
        -f "$forks" -t "$t" -rf json -rff "$out/jmh-t$t.json"
done

python3 benchmarks/report/jmh_report.py "$out" > "$out/jmh.md"
echo "wrote $out/jmh.md"
