#!/usr/bin/env bash
# Fair borrowing on a quiet machine: the fair-borrowing extension against HikariCP's own hand-off and Dropwizard's
# Tomcat pool, alternating runs (order rotated per cell), each in its own JVM; rows in runs/ of OUT (this folder
# unless given). CONFIGS (label:config, or label:config:jar where a configuration runs from a jar of its own) is
# set by the other runs of this benchmark, such as ../virtual-queue/run.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$here}
cd "$OUT"
mkdir -p runs
J=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
JAR=${JAR:-$here/../../target/benchmarks.jar}
ROUNDS=${ROUNDS:-3}
CELLS=${CELLS:-"2000:50:virtual 1000:50:virtual 10000:10:virtual 200:50:platform"}
read -r -a CONFIGS <<< "${CONFIGS:-fair-borrowing:hikari-fair-borrowing raw:raw-hikari-no-metrics tomcat-default:tomcat-default tomcat-safe:tomcat-safe}"
n=${#CONFIGS[@]}
k=0
for round in $(seq 1 "$ROUNDS"); do
  for cell in $CELLS; do
    IFS=: read -r borrowers pool threads <<< "$cell"
    for i in $(seq 0 $((n - 1))); do
      IFS=: read -r label config jar <<< "${CONFIGS[$(( (i + k) % n ))]}"
      name="r${round}-${borrowers}on${pool}-${threads}-${label}"
      echo "$(date -u +%H:%M:%S) $name load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a runs/run.txt
      $J -XX:+UseSerialGC -Xmx2g -Dborrowers.threads="$threads" -cp "${jar:-$JAR}" \
        io.github.dropwizardhikari.benchmarks.VirtualBorrowers "runs/$name.tsv" 3 8 "$config" "$borrowers" "$pool" 0.2 \
        > /dev/null 2>> runs/stderr.txt
    done
    k=$((k + 1))
  done
done
echo "$(date -u +%H:%M:%S) finished, load: $(cut -d' ' -f1-3 /proc/loadavg)" >> runs/run.txt
