#!/usr/bin/env bash
# Run from the repository root after ./mvnw -B -q -pl benchmarks -am package -Dmaven.test.skip=true; OUT folder as $1; ROUNDS, THREADS. The StatementCycle rounds ran the same loop with StatementCycle and -p database=postgres.
# alternating rounds of the JMH connection cycle on the stub driver: the core alone, then with holders
set -euo pipefail
out=$1; rounds=${ROUNDS:-3}; threads=${THREADS:-4}
for round in $(seq 1 $rounds); do
  for pool in hikari hikari-holders; do
    echo "== round $round t$threads $pool $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/run.txt"
    java -jar benchmarks/target/benchmarks.jar ConnectionCycle -p pool=$pool -p database=stub -t $threads -f 1 \
      -wi 3 -w 1s -i 5 -r 2s -rf json -rff "$out/r$round-t$threads-$pool.json" > "$out/r$round-t$threads-$pool.txt" 2>&1
    grep -E "^ConnectionCycle" "$out/r$round-t$threads-$pool.txt" >> "$out/run.txt" || tail -3 "$out/r$round-t$threads-$pool.txt" >> "$out/run.txt"
  done
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/run.txt"
