#!/usr/bin/env python3
"""Prints a Markdown table of the rounds in a folder made by rounds.sh: per pool and version, each run's score and
the median of every measured iteration of every run (ops/ms), and the ratio of the two medians (after / before)."""
import glob
import json
import os
import statistics
import sys

folder = sys.argv[1]
pools = ["hikari", "hikari-fair-borrowing", "hikari-holders", "hikari-fault-handling", "hikari-operations"]
print("| pool | before: each run | after: each run | before: median iteration | after: median iteration | ratio |")
print("|---|---|---|---|---|---|")
for pool in pools:
    runs, medians = {}, {}
    for version in ("before", "after"):
        scores, iterations = [], []
        for path in sorted(glob.glob(os.path.join(folder, f"r*-{version}-{pool}.json"))):
            with open(path) as f:
                result = json.load(f)[0]["primaryMetric"]
            scores.append(result["score"])
            for fork in result["rawData"]:
                iterations.extend(fork)
        runs[version] = "; ".join(f"{score:,.0f}" for score in scores)
        medians[version] = statistics.median(iterations) if iterations else float("nan")
    print(f"| `{pool}` | {runs['before']} | {runs['after']} | {medians['before']:,.0f} | {medians['after']:,.0f} "
          f"| {medians['after'] / medians['before']:.2f} |")
