#!/usr/bin/env python3
"""Markdown tables from VirtualBorrowers' rows (virtual.tsv): one table per cell of borrowers x pool x hold, a row per
configuration, with the gate's two goals checked against the figures of the same run: max wait within 1.5 x what a
FIFO queue predicts at the throughput reached, and throughput at least 0.95 x the core alone (hikari).

    python3 benchmarks/report/virtual_report.py benchmarks/results/virtual/stub/virtual.tsv > report.md
"""
import csv
import sys

ORDER = ["hikari-fair-borrowing", "hikari", "raw-hikari-no-metrics", "tomcat-safe", "tomcat-default"]
NAMES = {
    "hikari-fair-borrowing": "bundle with the fair-borrowing extension",
    "hikari": "bundle, core alone",
    "raw-hikari-no-metrics": "raw HikariCP",
    "tomcat-safe": "Dropwizard's Tomcat pool (safe settings)",
    "tomcat-default": "Dropwizard's Tomcat pool (defaults)",
}


def main(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    cells = {}
    for row in rows:
        key = (int(row["borrowers"]), int(row["pool"]), float(row["hold_ms"]))
        cells.setdefault(key, {})[row["config"]] = row
    print("| borrowers | pool | hold | configuration | borrows/s | wait p50 | p99 | p99.9 | max | FIFO prediction "
          "| borrows per borrower | gate's goals |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for key in sorted(cells):
        borrowers, pool, hold = key
        by_config = cells[key]
        off = by_config.get("hikari")
        for config in ORDER:
            row = by_config.get(config)
            if row is None:
                continue
            goals = ""
            if config == "hikari-fair-borrowing":
                ratio = float(row["wait_max_ms"]) / float(row["fifo_prediction_ms"])
                verdict = [f"max {ratio:.2f} x FIFO ({'met' if ratio <= 1.5 else 'missed'})"]
                if off:
                    throughput = float(row["borrows_per_s"]) / float(off["borrows_per_s"])
                    verdict.append(f"{throughput:.3f} x gate-off throughput ({'met' if throughput >= 0.95 else 'missed'})")
                verdict.append("every borrower served" if int(row["per_borrower_min"]) > 0 else "a borrower starved")
                goals = "; ".join(verdict)
            print(f"| {borrowers:,} | {pool} | {hold:g} ms | {NAMES.get(config, config)} | {float(row['borrows_per_s']):,.0f} "
                  f"| {float(row['wait_p50_ms']):.2f} | {float(row['wait_p99_ms']):.2f} | {float(row['wait_p999_ms']):.2f} "
                  f"| {float(row['wait_max_ms']):.2f} | {float(row['fifo_prediction_ms']):.1f} "
                  f"| {row['per_borrower_min']}–{row['per_borrower_max']} | {goals} |")


if __name__ == "__main__":
    main(sys.argv[1])
