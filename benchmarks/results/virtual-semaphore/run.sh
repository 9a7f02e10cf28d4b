#!/usr/bin/env bash
# Fair borrowing, new semaphore design against today's gate, HikariCP's hand-off and Tomcat: alternating runs.
set -u
cd "$(dirname "$0")"
mkdir -p runs
J=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java
ROUNDS=${ROUNDS:-3}
CELLS=${CELLS:-"2000:50:virtual 1000:50:virtual 10000:10:virtual 200:50:platform"}
# label:jar:config
CONFIGS=(semaphore:new.jar:hikari-fair-borrowing oldgate:oldgate.jar:hikari raw:new.jar:raw-hikari-no-metrics tomcat-default:new.jar:tomcat-default tomcat-safe:new.jar:tomcat-safe)
n=${#CONFIGS[@]}
k=0
START=${START:-1}
for round in $(seq "$START" $((START + ROUNDS - 1))); do
  for cell in $CELLS; do
    IFS=: read -r borrowers pool threads <<< "$cell"
    for i in $(seq 0 $((n - 1))); do
      IFS=: read -r label jar config <<< "${CONFIGS[$(( (i + k) % n ))]}"
      name="r${round}-${borrowers}on${pool}-${threads}-${label}"
      echo "$(date -u +%H:%M:%S) $name load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a runs/run.txt
      $J -XX:+UseSerialGC -Xmx2g -Dborrowers.threads="$threads" -cp "$jar" \
        io.github.dropwizardhikari.benchmarks.VirtualBorrowers "runs/$name.tsv" 3 8 "$config" "$borrowers" "$pool" 0.2 \
        > /dev/null 2>> runs/stderr.txt
      echo "$(date -u +%H:%M:%S) $name done, load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> runs/run.txt
    done
    k=$((k + 1))
  done
done
echo finished >> runs/run.txt
