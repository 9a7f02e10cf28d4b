#!/usr/bin/env python3
"""Turns the CSV files of run-grid.sh into report.md and PNG charts (gnuplot).

Per grid cell it reports the median of the runs and, with several runs, their range: docs/method.md measured
±30% between runs of one cell here, so a difference inside the range is not a result.
"""
import csv
import os
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict


def read(path):
    if not os.path.exists(path):
        return []
    with open(path) as handle:
        return list(csv.DictReader(handle))


def median_range(values):
    values = sorted(values)
    med = statistics.median(values)
    if len(values) == 1:
        return med, None
    return med, (values[0], values[-1])


def fmt(value, spread=None, digits=1):
    text = ("%." + str(digits) + "f") % value
    if spread:
        text += (" (%." + str(digits) + "f–%." + str(digits) + "f)") % spread
    return text


def grid_cells(rows):
    cells = defaultdict(lambda: defaultdict(list))
    for row in rows:
        key = (row["config"], int(row["pool_size"]), int(row["max_threads"]))
        for field in ("requests_per_s", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "errors"):
            cells[key][field].append(float(row[field]))
    return cells


def charts(out, cells):
    if not shutil.which("gnuplot"):
        return ["(gnuplot is not installed: no charts)"]
    img = os.path.join(out, "img")
    os.makedirs(img, exist_ok=True)
    configs = sorted({key[0] for key in cells})
    pools = sorted({key[1] for key in cells})
    threads = sorted({key[2] for key in cells})
    lines = []
    for config in configs:
        # one file per x axis, grouped by the series, so that gnuplot draws each series as one line
        by_threads = os.path.join(img, config + "-by-threads.dat")
        by_pool = os.path.join(img, config + "-by-pool.dat")
        write_series(by_threads, cells, config, [(p, t) for t in threads for p in pools])
        write_series(by_pool, cells, config, [(p, t) for p in pools for t in threads])
        png = os.path.join(img, config + ".png")
        script = ["set terminal pngcairo size 1500,900 font ',9'", "set output '%s'" % png,
                  "set multiplot layout 2,3 title '%s: GET /questions?user=N, 9 rows (median of runs)'" % config,
                  "set key outside right font ',7'", "set logscale x 2", "set grid"]
        for data, x_col, x_name, series, series_col, series_name in (
                (by_threads, 1, "pool size", threads, 2, "threads"),
                (by_pool, 2, "request threads", pools, 1, "pool")):
            for y_col, y_name in ((3, "requests/s"), (4, "mean latency (ms)"), (5, "p99 latency (ms)")):
                plots = ["'%s' using (%s == %d ? $%d : 1/0):%d with linespoints title '%s %d'" % (
                    data, "$" + str(series_col), value, x_col, y_col, series_name, value) for value in series]
                script += ["set xlabel '%s'" % x_name, "set ylabel '%s'" % y_name, "plot " + ", ".join(plots)]
        script.append("unset multiplot")
        subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True, stderr=subprocess.DEVNULL)
        lines.append("![%s](img/%s.png)" % (config, config))
    lines.append(comparison(img, cells, configs, pools, threads))
    return lines


def write_series(path, cells, config, order):
    with open(path, "w") as handle:
        previous = None
        for pool, thread in order:
            cell = cells.get((config, pool, thread))
            if cell is None:
                continue
            handle.write("%d %d %.1f %.3f %.3f %.3f\n" % (pool, thread,
                statistics.median(cell["requests_per_s"]), statistics.median(cell["mean_ms"]),
                statistics.median(cell["p99_ms"]), statistics.median(cell["p50_ms"])))


def comparison(img, cells, configs, pools, threads):
    """One chart with every configuration side by side: requests/s, p50 and p99 per grid cell."""
    data = os.path.join(img, "comparison.dat")
    with open(data, "w") as handle:
        handle.write("cell " + " ".join("%s-%s" % (config, metric) for metric in ("rps", "p50", "p99")
                                        for config in configs) + "\n")
        for pool in pools:
            for thread in threads:
                values = []
                for field in ("requests_per_s", "p50_ms", "p99_ms"):
                    for config in configs:
                        cell = cells.get((config, pool, thread))
                        values.append("%.2f" % statistics.median(cell[field]) if cell else "NaN")
                handle.write("p%d/t%d %s\n" % (pool, thread, " ".join(values)))
    png = os.path.join(img, "comparison.png")
    count = len(configs)
    script = ["set terminal pngcairo size 1500,1100 font ',9'", "set output '%s'" % png,
              "set multiplot layout 3,1 title 'All configurations per grid cell (pool/threads), median of runs'",
              "set style data histogram", "set style histogram cluster gap 1", "set style fill solid 0.8",
              "set key outside right", "set grid y", "set yrange [0:*]", "set xtics rotate by -45 font ',7'"]
    for index, name in enumerate(("requests/s", "p50 latency (ms)", "p99 latency (ms)")):
        columns = ", ".join("'%s' using %d:xtic(1) title columnheader(%d)" % (data, 2 + index * count + i,
                                                                             2 + index * count + i)
                            for i in range(count))
        script += ["set ylabel '%s'" % name, "plot " + columns]
    script.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True, stderr=subprocess.DEVNULL)
    return "![all configurations side by side](img/comparison.png)"


def gate_goal(cells):
    """Issue 12's rule per cell: hikari's p99 at most tomcat-safe's, its requests/s at least 0.95 x hikari-unfair's.
    Medians decide; the ranges beside them say whether the difference is inside the noise."""
    needed = ("hikari", "hikari-unfair", "tomcat-safe")
    keys = sorted({(key[1], key[2]) for key in cells if all((c, key[1], key[2]) in cells for c in needed)})
    if not keys:
        return []
    lines = ["", "## The fair borrow gate's goal per cell (medians; ranges of the runs in brackets)", "",
             "| pool | request threads | hikari p99 | tomcat-safe p99 | p99 goal | hikari req/s | hikari-unfair "
             "req/s | ratio | throughput goal | both |", "|---|---|---|---|---|---|---|---|---|---|"]
    met = 0
    for pool, threads in keys:
        gate, unfair, safe = (cells[(c, pool, threads)] for c in needed)
        p99 = statistics.median(gate["p99_ms"]) <= statistics.median(safe["p99_ms"])
        ratio = statistics.median(gate["requests_per_s"]) / statistics.median(unfair["requests_per_s"])
        both = p99 and ratio >= 0.95
        met += both
        lines.append("| %d | %d | %s | %s | %s | %s | %s | %.2f | %s | %s |" % (
            pool, threads, fmt(*median_range(gate["p99_ms"])), fmt(*median_range(safe["p99_ms"])),
            "met" if p99 else "missed", fmt(*median_range(gate["requests_per_s"]), digits=0),
            fmt(*median_range(unfair["requests_per_s"]), digits=0), ratio, "met" if ratio >= 0.95 else "missed",
            "**met**" if both else "missed"))
    lines += ["", "Cells meeting both goals: %d of %d (the issue's rule turns the gate on by default at 5 of 6)."
              % (met, len(keys))]
    return lines


def mixed_section(out, rows):
    """The mixed workload: each endpoint's requests/s and p99 per configuration, median and range of the runs."""
    by = defaultdict(lambda: defaultdict(list))
    for row in rows:
        for field in ("requests_per_s", "p50_ms", "p99_ms", "errors"):
            by[(row["config"], row["endpoint"])][field].append(float(row[field]))
    first = rows[0]
    lines = ["", "## Mixed workload: questions and /pause at once (pool %s, %s request threads)"
             % (first["pool_size"], first["max_threads"]), "",
             "Half of wrk's connections on `GET /questions?user=N`, half on `GET /pause` (waits, never uses the "
             "database), two wrk processes at once. `tomcat-safe` is the same application without the bundle.", "",
             "| config | endpoint | requests/s | p50 | p99 | errors |", "|---|---|---|---|---|---|"]
    configs = sorted({key[0] for key in by})
    for config in configs:
        for endpoint in ("questions", "pause"):
            cell = by.get((config, endpoint))
            if cell:
                lines.append("| %s | %s | %s | %s | %s | %d |" % (
                    config, endpoint, fmt(*median_range(cell["requests_per_s"]), digits=0),
                    fmt(*median_range(cell["p50_ms"])), fmt(*median_range(cell["p99_ms"])), sum(cell["errors"])))
    if shutil.which("gnuplot"):
        img = os.path.join(out, "img")
        os.makedirs(img, exist_ok=True)
        data = os.path.join(img, "mixed.dat")
        with open(data, "w") as handle:
            handle.write("config questions-rps pause-rps questions-p99 pause-p99\n")
            for config in configs:
                values = []
                for field in ("requests_per_s", "p99_ms"):
                    for endpoint in ("questions", "pause"):
                        cell = by.get((config, endpoint))
                        values.append("%.2f" % statistics.median(cell[field]) if cell else "NaN")
                handle.write("%s %s\n" % (config, " ".join(values)))
        png = os.path.join(img, "mixed.png")
        script = ["set terminal pngcairo size 1200,800 font ',9'", "set output '%s'" % png,
                  "set multiplot layout 2,1 title 'Mixed workload: each endpoint per configuration (median of runs)'",
                  "set style data histogram", "set style histogram cluster gap 1", "set style fill solid 0.8",
                  "set key outside right", "set grid y", "set yrange [0:*]",
                  "set ylabel 'requests/s'",
                  "plot '%s' using 2:xtic(1) title columnheader(2), '' using 3 title columnheader(3)" % data,
                  "set ylabel 'p99 latency (ms)'",
                  "plot '%s' using 4:xtic(1) title columnheader(4), '' using 5 title columnheader(5)" % data,
                  "unset multiplot"]
        subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=True, stderr=subprocess.DEVNULL)
        lines += ["", "![mixed workload](img/mixed.png)"]
    return lines


def main():
    out = sys.argv[1]
    grid = read(os.path.join(out, "grid.csv"))
    if not grid:
        sys.exit("no grid results in " + out)
    cells = grid_cells(grid)
    runs = len({row["run"] for row in grid})
    report = ["# HTTP benchmark: GET /questions?user=N (an owner with 9 questions)", "",
              "Generated by `benchmarks/http/run-grid.sh` (%d run(s) per cell; median, and the range of the runs "
              "when there are several). Latencies in ms. `max_threads` is the number of request threads Jetty "
              "runs at once." % runs, ""]

    report += ["## Every cell", "", "| config | pool | request threads | requests/s | mean | p50 | p99 | errors |",
               "|---|---|---|---|---|---|---|---|"]
    for key in sorted(cells):
        cell = cells[key]
        report.append("| %s | %d | %d | %s | %s | %s | %s | %d |" % (
            key[0], key[1], key[2], fmt(*median_range(cell["requests_per_s"]), digits=0),
            fmt(*median_range(cell["mean_ms"])), fmt(*median_range(cell["p50_ms"])),
            fmt(*median_range(cell["p99_ms"])), sum(cell["errors"])))

    report += ["", "## Best and worst request-thread count per pool size (by median requests/s)", "",
               "| config | pool | best threads | requests/s | p99 | worst threads | requests/s | p99 |",
               "|---|---|---|---|---|---|---|---|"]
    for config in sorted({key[0] for key in cells}):
        for pool in sorted({key[1] for key in cells if key[0] == config}):
            candidates = [(statistics.median(cells[key]["requests_per_s"]), key) for key in cells
                          if key[0] == config and key[1] == pool]
            best, worst = max(candidates), min(candidates)
            report.append("| %s | %d | %d | %.0f | %.1f | %d | %.0f | %.1f |" % (
                config, pool, best[1][2], best[0], statistics.median(cells[best[1]]["p99_ms"]),
                worst[1][2], worst[0], statistics.median(cells[worst[1]]["p99_ms"])))

    endpoints = read(os.path.join(out, "endpoints.csv"))
    if endpoints:
        report += ["", "## Other endpoints (one run), and a non-fixed pool (`*-variable`: minSize 1)", "",
                   "| config | endpoint | request threads | requests/s | mean | p50 | p99 | errors |",
                   "|---|---|---|---|---|---|---|---|"]
        for row in endpoints:
            report.append("| %s | %s | %s | %.0f | %.1f | %.1f | %.1f | %s |" % (
                row["config"], row["endpoint"], row["max_threads"], float(row["requests_per_s"]),
                float(row["mean_ms"]), float(row["p50_ms"]), float(row["p99_ms"]), row["errors"]))

    ceiling = read(os.path.join(out, "ceiling.csv"))
    if ceiling:
        best_http = max(statistics.median(cell["requests_per_s"]) for cell in cells.values())
        best_jdbc = max(float(row["queries_per_s"]) for row in ceiling)
        report += ["", "## Ceiling: the same query over plain JDBC (no HTTP, no pool), app CPU", "",
                   "| JDBC threads | queries/s |", "|---|---|"]
        report += ["| %s | %.0f |" % (row["threads"], float(row["queries_per_s"])) for row in ceiling]
        if best_jdbc > 0:
            report += ["", "The best HTTP cell served %.0f requests/s: %.0f%% of the %.0f queries/s plain JDBC "
                       "reaches." % (best_http, 100 * best_http / best_jdbc, best_jdbc)]

    report += gate_goal(cells)
    mixed = read(os.path.join(out, "mixed.csv"))
    if mixed:
        report += mixed_section(out, mixed)

    report += ["", "## Charts", ""] + charts(out, cells)
    with open(os.path.join(out, "report.md"), "w") as handle:
        handle.write("\n".join(report) + "\n")


if __name__ == "__main__":
    main()
