#!/usr/bin/env bash
# Two designs of the fair-borrowing extension's gate side by side on a quiet machine: places as tokens in a
# LinkedTransferQueue (QUEUE_JAR, built from c410caa) against the fair Semaphore (SEMAPHORE_JAR, built from 7fbfc56,
# the gate main keeps), with HikariCP's own hand-off and Dropwizard's Tomcat pool; alternating runs (order rotated
# per cell), each in its own JVM; rows in runs/.
set -u
cd "$(dirname "$0")"
mkdir -p runs
J=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
QUEUE_JAR=${QUEUE_JAR:?the benchmarks jar built with the queue gate}
SEMAPHORE_JAR=${SEMAPHORE_JAR:?the benchmarks jar built with the semaphore gate}
ROUNDS=${ROUNDS:-3}
CELLS=${CELLS:-"2000:50:virtual 1000:50:virtual 10000:10:virtual 200:50:platform"}
# label:config:jar
CONFIGS=(queue:hikari-fair-borrowing:$QUEUE_JAR semaphore:hikari-fair-borrowing:$SEMAPHORE_JAR
  raw:raw-hikari-no-metrics:$QUEUE_JAR tomcat-default:tomcat-default:$QUEUE_JAR)
n=${#CONFIGS[@]}
k=0
for round in $(seq 1 "$ROUNDS"); do
  for cell in $CELLS; do
    IFS=: read -r borrowers pool threads <<< "$cell"
    for i in $(seq 0 $((n - 1))); do
      IFS=: read -r label config jar <<< "${CONFIGS[$(( (i + k) % n ))]}"
      name="r${round}-${borrowers}on${pool}-${threads}-${label}"
      echo "$(date -u +%H:%M:%S) $name load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a runs/run.txt
      $J -XX:+UseSerialGC -Xmx2g -Dborrowers.threads="$threads" -cp "$jar" \
        io.github.dropwizardhikari.benchmarks.VirtualBorrowers "runs/$name.tsv" 3 8 "$config" "$borrowers" "$pool" 0.2 \
        > /dev/null 2>> runs/stderr.txt
    done
    k=$((k + 1))
  done
done
echo "$(date -u +%H:%M:%S) finished, load: $(cut -d' ' -f1-3 /proc/loadavg)" >> runs/run.txt
