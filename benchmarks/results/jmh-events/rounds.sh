#!/usr/bin/env bash
# Alternating rounds of the JMH connection cycle on the stub driver at THREADS (4) threads, one fork each: the core
# alone and with each extension that acts on borrows, from two jars side by side (BEFORE, AFTER: each built with
# ./mvnw -B -q -pl benchmarks -am package -DskipTests from its commit, Pools.java given the hikari-fault-handling and
# hikari-operations cases). Run from the repository root; OUT folder as $1; ROUNDS (2), ITER (measured iterations, 4).
set -euo pipefail
out=$1; rounds=${ROUNDS:-2}; threads=${THREADS:-4}
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
  for pool in hikari hikari-fair-borrowing hikari-holders hikari-fault-handling hikari-operations; do
    for version in before after; do
      jar=$BEFORE; [ "$version" = after ] && jar=$AFTER
      echo "== round $round t$threads $pool $version $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/run.txt"
      java -jar "$jar" ConnectionCycle -p pool=$pool -p database=stub -t "$threads" -f 1 \
        -wi 3 -w 1s -i "${ITER:-4}" -r 1s -rf json -rff "$out/r$round-$version-$pool.json" > "$out/r$round-$version-$pool.txt" 2>&1
      grep -E "^ConnectionCycle" "$out/r$round-$version-$pool.txt" >> "$out/run.txt" \
        || tail -3 "$out/r$round-$version-$pool.txt" >> "$out/run.txt"
    done
  done
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/run.txt"
