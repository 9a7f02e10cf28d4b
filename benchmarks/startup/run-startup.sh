#!/usr/bin/env bash
# Start-up benchmark: the same Dropwizard application (Hibernate, Migrations, one entity, a resource using a DAO) on
# Dropwizard's pool (`DataSourceFactory`) and on this library's (`HikariDataSourceFactory` + `HikariBundle`, no
# extension named), started alternately, tomcat then hikari, RUNS times each. Per start it measures
#   server     launch to the admin port's /healthcheck answering 200 (the application then stops on SIGTERM)
#   check      the wall time of `check config.yml`
#   db status  the wall time of `db status config.yml`, against a database one `db migrate` brought up to date
# and prints the median, min and max of each, the difference of the medians, and the load average before each run.
#
#   bash benchmarks/startup/run-startup.sh           # 6 starts of each variant and command
#   RUNS=3 bash benchmarks/startup/run-startup.sh     # fewer
#   SKIP_BUILD=1 ...                                  # reuse benchmarks/target/benchmarks.jar
#
# Java: $JAVA_HOME/bin/java when JAVA_HOME is set, else JDK 17 (the `java` on the PATH if it is 17, else one under
# /usr/lib/jvm). PostgreSQL: PGHOST (127.0.0.1), PGPORT (5432), PGUSER (postgres, no password), PGADMINDB (test), in
# which the script creates a database of its own (startup_bench_<random>) and drops it at the end.
# Output: benchmarks/results/startup/ (OUT): startup.csv (every run), output.txt (every run as it is printed),
# report.md (the table, with `uptime` before and after), logs/ (the application's output of the last round).
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=${RUNS:-6}
out=${OUT:-benchmarks/results/startup}
pghost=${PGHOST:-127.0.0.1}
pgport=${PGPORT:-5432}
pguser=${PGUSER:-postgres}
admindb=${PGADMINDB:-test}

java_major() {
    "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'
}
if [ -n "${JAVA_HOME:-}" ]; then
    java="$JAVA_HOME/bin/java"
elif command -v java >/dev/null && [ "$(java_major java)" = 17 ]; then
    java=$(command -v java)
else
    java=$(ls -d /usr/lib/jvm/*17*/bin/java 2>/dev/null | head -1)
    if [ -z "$java" ]; then
        echo "no JDK 17 found: set JAVA_HOME" >&2
        exit 1
    fi
fi
echo "java: $java ($("$java" -version 2>&1 | head -1))"

if [ -z "${SKIP_BUILD:-}" ]; then
    # tests are not compiled: the benchmark needs none, and the machine may be shared
    ./mvnw -B -q -pl benchmarks -am package -Dmaven.test.skip=true -Djacoco.skip=true -Dmaven.javadoc.skip=true
fi
jar=benchmarks/target/benchmarks.jar

# A free port for the application, whose next port (the admin connector) is free too, below the kernel's ephemeral
# range: a port in that range can be taken by an outgoing connection (a JDBC socket) between two starts.
app_port=$(python3 -c '
import random
import socket

def free(port):
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("0.0.0.0", port))
            return True
        except OSError:
            return False

try:
    with open("/proc/sys/net/ipv4/ip_local_port_range") as ports:
        ephemeral = int(ports.read().split()[0])
except OSError:
    ephemeral = 32768
while True:
    port = random.randrange(10000, ephemeral - 2)
    if free(port) and free(port + 1):
        print(port)
        break
')
database="startup_bench_$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
psql_admin=(psql -q -h "$pghost" -p "$pgport" -U "$pguser" -d "$admindb")

scratch=$(mktemp -d)
cleanup() {
    "${psql_admin[@]}" -c "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1 || true
    rm -rf "$scratch"
}
trap cleanup EXIT
"${psql_admin[@]}" -c "CREATE DATABASE $database" >/dev/null

# One configuration for both variants: the swap changes the Java type, not the YAML.
cat > "$scratch/config.yml" <<YAML
database:
  driverClass: org.postgresql.Driver
  user: $pguser
  url: jdbc:postgresql://$pghost:$pgport/$database
server:
  applicationConnectors:
    - type: http
      port: $app_port
  adminConnectors:
    - type: http
      port: $((app_port + 1))
YAML

mkdir -p "$out/logs"
uptime_before=$(uptime)
echo "database $database, ports $app_port and $((app_port + 1)), $runs runs of each variant; before: $uptime_before"

python3 - "$java" "$jar" "$scratch/config.yml" "$((app_port + 1))" "$runs" "$out" "$uptime_before" <<'PY' \
    | tee "$out/output.txt"
import csv
import os
import resource
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request

java, jar, config, admin_port, runs, out, uptime_before = sys.argv[1:]
runs = int(runs)
package = "io.github.dropwizardhikari.benchmarks.startup."
variants = {"tomcat": package + "TomcatPeopleApplication", "hikari": package + "HikariPeopleApplication"}
commands = {"server": ["server"], "check": ["check"], "db status": ["db", "status"]}
health = "http://127.0.0.1:%s/healthcheck" % admin_port


def load():
    with open("/proc/loadavg") as loadavg:
        return float(loadavg.read().split()[0])


def log_path(variant, command):
    return os.path.join(out, "logs", "%s-%s.log" % (variant, command.replace(" ", "-")))


def cpu_of(pid):
    # user + system time of every thread of a running process, from /proc
    with open("/proc/%d/stat" % pid) as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def healthy():
    try:
        with urllib.request.urlopen(health, timeout=2) as response:
            return response.status == 200
    except (urllib.error.URLError, ConnectionError, OSError):
        return False


def serve(variant, log):
    # launch to the first 200 of /healthcheck, polled every 20 ms from this process (no process per poll)
    start = time.monotonic()
    app = subprocess.Popen([java, "-cp", jar, variants[variant], "server", config], stdout=log, stderr=subprocess.STDOUT)
    try:
        while not healthy():
            if app.poll() is not None:
                raise SystemExit("%s server exited with %d before /healthcheck answered 200: see %s"
                                 % (variant, app.returncode, log.name))
            if time.monotonic() - start > 300:
                raise SystemExit("%s server: no 200 from /healthcheck within 300 s: see %s" % (variant, log.name))
            time.sleep(0.02)
        return time.monotonic() - start, cpu_of(app.pid)
    finally:
        app.terminate()
        try:
            app.wait(60)
        except subprocess.TimeoutExpired:
            app.kill()
            app.wait()


def run(variant, command, log):
    start, cpu = time.monotonic(), children_cpu()
    done = subprocess.run([java, "-cp", jar, variants[variant]] + commands[command] + [config],
                          stdout=log, stderr=subprocess.STDOUT)
    elapsed = time.monotonic() - start
    if done.returncode != 0:
        raise SystemExit("%s %s exited with %d: see %s" % (variant, command, done.returncode, log.name))
    return elapsed, children_cpu() - cpu


rows = []
with open(log_path("hikari", "db migrate"), "w") as log:
    before = load()
    start, cpu = time.monotonic(), children_cpu()
    migrated = subprocess.run([java, "-cp", jar, variants["hikari"], "db", "migrate", config],
                              stdout=log, stderr=subprocess.STDOUT)
    if migrated.returncode != 0:
        raise SystemExit("db migrate exited with %d: see %s" % (migrated.returncode, log.name))
    rows.append({"round": 0, "variant": "hikari", "command": "db migrate", "seconds": time.monotonic() - start,
                 "cpu_seconds": children_cpu() - cpu, "load1": before})

for round_number in range(1, runs + 1):
    for command in commands:
        for variant in variants:
            before = load()
            with open(log_path(variant, command), "w") as log:
                seconds, cpu = serve(variant, log) if command == "server" else run(variant, command, log)
            rows.append({"round": round_number, "variant": variant, "command": command, "seconds": seconds,
                         "cpu_seconds": cpu, "load1": before})
            print("round %d  %-9s  %-6s  %6.2f s  (CPU %5.2f s, load %.2f)"
                  % (round_number, command, variant, seconds, cpu, before), flush=True)

with open(os.path.join(out, "startup.csv"), "w", newline="") as handle:
    writer = csv.DictWriter(handle, fieldnames=["round", "variant", "command", "seconds", "cpu_seconds", "load1"])
    writer.writeheader()
    for row in rows:
        writer.writerow(dict(row, seconds="%.3f" % row["seconds"], cpu_seconds="%.2f" % row["cpu_seconds"], load1="%.2f" % row["load1"]))

java_version = subprocess.run([java, "-version"], capture_output=True, text=True).stderr.splitlines()[0]
lines = ["# Start-up time: Dropwizard's pool (tomcat) and HikariDataSourceFactory (hikari)", "",
         "%d alternating starts of each variant, %s, %d CPUs. One `db migrate` first: %.2f s."
         % (runs, java_version, os.cpu_count(), rows[0]["seconds"]), "",
         "Before: `%s`" % uptime_before.strip(), "",
         "Wall time (for `server`: launch to the first 200 of the admin port's /healthcheck), and the CPU time (user + "
         "system, every thread) the JVM spent in it, which a busy machine disturbs less.", "",
         "| command | tomcat median | min | max | hikari median | min | max | hikari - tomcat | CPU tomcat / hikari "
         "(medians) | load 1 min (tomcat / hikari runs) |",
         "|---|---|---|---|---|---|---|---|---|---|"]
verdicts = []
for command in commands:
    figures = {}
    for variant in variants:
        measured = [row for row in rows if row["command"] == command and row["variant"] == variant]
        seconds = [row["seconds"] for row in measured]
        figures[variant] = (statistics.median(seconds), min(seconds), max(seconds),
                            statistics.median(row["cpu_seconds"] for row in measured),
                            statistics.mean(row["load1"] for row in measured))
    tomcat, hikari = figures["tomcat"], figures["hikari"]
    difference = hikari[0] - tomcat[0]
    lines.append("| %s | %.2f s | %.2f | %.2f | %.2f s | %.2f | %.2f | %+.2f s | %.2f / %.2f s | %.1f / %.1f |"
                 % ((command,) + tomcat[:3] + hikari[:3] + (difference, tomcat[3], hikari[3], tomcat[4], hikari[4])))
    # inside the spread: each variant's median lies within the other's min..max
    overlap = tomcat[1] <= hikari[0] <= tomcat[2] and hikari[1] <= tomcat[0] <= hikari[2]
    verdicts.append("- %s: the hikari median is %.2f s %s the tomcat median, %s 0.3 s and %s the runs' spread "
                    "(tomcat %.2f-%.2f s, hikari %.2f-%.2f s); CPU %+.2f s"
                    % (command, abs(difference), "above" if difference > 0 else "below",
                       "within" if abs(difference) <= 0.3 else "more than",
                       "inside" if overlap else "outside", tomcat[1], tomcat[2], hikari[1], hikari[2],
                       hikari[3] - tomcat[3]))
lines += [""] + verdicts
report = "\n".join(lines) + "\n"
print()
print(report)
with open(os.path.join(out, "report.md"), "w") as handle:
    handle.write(report)
PY

uptime_after=$(uptime)
echo "after: $uptime_after"
printf '\nAfter: `%s`\n' "$(echo "$uptime_after" | sed 's/^ *//')" >> "$out/report.md"
