#!/usr/bin/env python3
"""Median and range of every cell and configuration in runs/*.tsv, as summary.md's table.

The runs are those of this folder, or of the folder given (python3 summarize.py ../virtual-queue)."""
import csv
import glob
import os
import re
import statistics
import sys
from collections import defaultdict

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
rows = defaultdict(list)
for path in sorted(glob.glob(os.path.join(here, "runs", "*.tsv"))):
    match = re.match(r"r\d+-(\d+)on(\d+)-(\w+)-(.+)\.tsv$", os.path.basename(path))
    borrowers, pool, threads, label = match.groups()
    with open(path) as f:
        for row in csv.DictReader(f, delimiter="\t"):
            rows[(int(borrowers), int(pool), threads, label)].append(row)


def figure(values, fmt):
    values = sorted(values)
    return f"{fmt(statistics.median(values))} ({fmt(values[0])}–{fmt(values[-1])})"


print("| cell | configuration | runs | borrows/s | max wait ms | max ÷ FIFO prediction | p99 ms "
      "| every borrower served (fewest borrows of one borrower) | failed |")
print("|---|---|---|---|---|---|---|---|---|")
for (borrowers, pool, threads, label) in sorted(rows, key=lambda k: (-k[0] * (k[2] == "virtual"), k[1], k[3])):
    runs = rows[(borrowers, pool, threads, label)]
    rate = [float(r["borrows_per_s"]) for r in runs]
    maximum = [float(r["wait_max_ms"]) for r in runs]
    ratio = [float(r["wait_max_ms"]) / float(r["fifo_prediction_ms"]) for r in runs]
    p99 = [float(r["wait_p99_ms"]) for r in runs]
    fewest = min(int(r["per_borrower_min"]) for r in runs)
    failed = sum(int(r["failed"]) for r in runs)
    print(f"| {borrowers:,} {threads} on {pool} | {label} | {len(runs)} | {figure(rate, lambda v: f'{v:,.0f}')} "
          f"| {figure(maximum, lambda v: f'{v:.1f}')} | {figure(ratio, lambda v: f'{v:.2f}')} "
          f"| {figure(p99, lambda v: f'{v:.1f}')} | {'yes' if fewest > 0 else 'NO'} ({fewest}) | {failed} |")
