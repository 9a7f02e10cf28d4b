#!/usr/bin/env bash
# The rounds behind docs/benchmarks.md's "The holders extension": the core alone, then with holders, one fork each,
# in alternation, so that the machine's load drifts over both alike. Run from the repository's root after
# ./mvnw -B -q -pl benchmarks -am package -DskipTests; OUT defaults to a temporary folder.
set -euo pipefail
out=${OUT:-$(mktemp -d)}
for round in 1 2 3 4; do
  for db in stub postgres; do
    if [ $db = postgres ] && [ $round -gt 2 ]; then continue; fi
    for pool in hikari hikari-holders; do
      echo "== round $round $db $pool $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/run.txt"
      java -jar benchmarks/target/benchmarks.jar ConnectionCycle -p pool=$pool -p database=$db -t 4 -f 1 \
        -wi 3 -w 1s -i 4 -r 1s -rf json -rff "$out/r$round-$db-$pool.json" > "$out/r$round-$db-$pool.txt" 2>&1
      grep -E "^ConnectionCycle" "$out/r$round-$db-$pool.txt" >> "$out/run.txt" || tail -3 "$out/r$round-$db-$pool.txt" >> "$out/run.txt"
    done
  done
done
echo "== end $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/run.txt"
echo "wrote $out/run.txt"
