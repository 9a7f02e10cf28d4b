#!/usr/bin/env python3
"""Turns the JMH JSON files of run-jmh.sh into a Markdown table: ops/ms with the 99.9% error, per benchmark,
database and thread count, and the ratios the report discusses (the bundle against raw HikariCP with the same
metrics and without any, HikariCP with the bundle's metrics tracker alone, the gate's cost (hikari against hikari-unfair) and the bundle against each Tomcat configuration).
Pools absent from a run show as "-"."""
import glob
import json
import os
import subprocess
import sys

POOLS = ["raw-hikari-no-metrics", "raw-hikari", "raw-hikari-bundle-metrics", "hikari", "hikari-unfair", "tomcat-default", "tomcat-safe"]


def load(directory):
    rows = {}
    for path in sorted(glob.glob(os.path.join(directory, "jmh-t*.json"))):
        with open(path) as handle:
            for result in json.load(handle):
                bench = result["benchmark"].split(".")[-2]
                params = result.get("params", {})
                key = (bench, params.get("database"), result["threads"])
                metric = result["primaryMetric"]
                error = metric.get("scoreError")
                rows.setdefault(key, {})[params.get("pool")] = (metric["score"], error)
    return rows


def cell(value):
    if value is None:
        return "-"
    score, error = value
    # JMH writes "NaN" as a string when a single iteration leaves no error estimate
    if not isinstance(error, (int, float)) or error != error:
        return "%.1f" % score
    return "%.1f ± %.1f" % (score, error)


def has_error(value):
    return isinstance(value[1], (int, float)) and value[1] == value[1]


def ratio(numerator, denominator):
    """The ratio of the scores; marked when the two 99.9% intervals overlap, since then it is no result."""
    if numerator is None or denominator is None or denominator[0] == 0:
        return "-"
    text = "%.2f" % (numerator[0] / denominator[0])
    if has_error(numerator) and has_error(denominator) \
            and abs(numerator[0] - denominator[0]) <= numerator[1] + denominator[1]:
        text += " (within error)"
    return text


def settings(directory):
    """One line per result file: the JMH settings the run really used, read back from its JSON."""
    lines = []
    paths = glob.glob(os.path.join(directory, "jmh-t*.json"))
    for path in sorted(paths, key=lambda p: int(os.path.basename(p)[len("jmh-t"):-len(".json")])):
        with open(path) as handle:
            results = json.load(handle)
        if results:
            first = results[0]
            lines.append("- %d thread(s): %d fork(s), warm-up %d x %s, measurement %d x %s, JVM %s" % (
                first["threads"], first["forks"], first["warmupIterations"], first["warmupTime"],
                first["measurementIterations"], first["measurementTime"], first.get("jdkVersion", "?")))
    return lines


def chart(rows, png):
    """Clustered bars with gnuplot: ops/ms per benchmark, database and thread count, one bar per pool present."""
    pools = [pool for pool in POOLS if any(pool in value for value in rows.values())]
    data = os.path.splitext(png)[0] + ".dat"
    with open(data, "w") as handle:
        handle.write("cell " + " ".join(pools) + "\n")
        for key in sorted(rows, key=lambda k: (k[0], k[1] or "", k[2])):
            values = ["%.2f" % rows[key][pool][0] if pool in rows[key] else "NaN" for pool in pools]
            handle.write("%s/%s/t%d %s\n" % (key[0].replace("Cycle", ""), key[1], key[2], " ".join(values)))
    script = ["set terminal pngcairo size 1400,700 font ',9'", "set output '%s'" % png,
              "set title 'JMH throughput per pool (ops/ms; higher is better)'", "set style data histogram",
              "set style histogram cluster gap 1", "set style fill solid 0.8", "set key outside right",
              "set grid y", "set logscale y", "set xtics rotate by -45 font ',8'", "set ylabel 'ops/ms (log scale)'",
              "plot " + ", ".join("'%s' using %d:xtic(1) title columnheader(%d)" % (data, 2 + i, 2 + i)
                                  for i in range(len(pools)))]
    subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True, stderr=subprocess.DEVNULL)


def main():
    rows = load(sys.argv[1])
    if not rows:
        sys.exit("no JMH results in " + sys.argv[1])
    if len(sys.argv) > 3 and sys.argv[2] == "--chart":
        chart(rows, sys.argv[3])
    print("Throughput in operations per millisecond, ± JMH's 99.9% confidence error. A ratio marked "
          "\"within error\" compares two scores whose intervals overlap: it is not a measured difference.")
    print()
    print("\n".join(settings(sys.argv[1])))
    print()
    print("| benchmark | database | threads | " + " | ".join("`%s` ops/ms" % pool for pool in POOLS)
          + " | hikari ÷ hikari-unfair | hikari ÷ raw-hikari-no-metrics | hikari ÷ raw-hikari"
          + " | hikari ÷ tomcat-default | hikari ÷ tomcat-safe | bundle's metrics alone ÷ raw-hikari-no-metrics |")
    print("|---" * (3 + len(POOLS) + 6) + "|")
    for key in sorted(rows, key=lambda k: (k[0], k[1] or "", k[2])):
        pools = rows[key]
        hikari = pools.get("hikari")
        print("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            key[0], key[1], key[2],
            " | ".join(cell(pools.get(pool)) for pool in POOLS),
            ratio(hikari, pools.get("hikari-unfair")),
            ratio(hikari, pools.get("raw-hikari-no-metrics")),
            ratio(hikari, pools.get("raw-hikari")),
            ratio(hikari, pools.get("tomcat-default")),
            ratio(hikari, pools.get("tomcat-safe")),
            ratio(pools.get("raw-hikari-bundle-metrics"), pools.get("raw-hikari-no-metrics"))))


if __name__ == "__main__":
    main()
