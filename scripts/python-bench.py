#!/usr/bin/env python3
"""Speed of the Python package against the command line, same machine,
same run (issue 14): 1,000,000 puzzles (easy_100k ten times), 2 threads.

    python scripts/python-bench.py [--runs 5] [--dataset PATH] [--peer]

Measures, alternating A and B and taking medians:
- batchdoku.solve on an (N, 81) uint8 array vs `batchdoku solve -j 2 FILE -o OUT`
  (file to file, the whole process);
- batchdoku.solve on a list of str vs the same CLI run;
- with --peer, batchdoku.solve against py-sudoku (`pip install py-sudoku`)
  on a few hundred puzzles, one thread.
Prints a Markdown table for BENCHMARKS.md.
"""

import argparse
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import batchdoku

ROOT = pathlib.Path(__file__).resolve().parents[1]


def cpu_name() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def timed(f) -> float:
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dataset", default=str(ROOT.parent / "shared" / "datasets" / "easy_100k.txt"))
    ap.add_argument("--times", type=int, default=10, help="copies of the dataset (default 10)")
    ap.add_argument("--cli", default=str(ROOT / "target" / "release" / "batchdoku"))
    ap.add_argument("--peer", action="store_true", help="also time py-sudoku")
    args = ap.parse_args()

    base = [l[:81] for l in open(args.dataset) if l.strip() and not l.startswith("#")]
    lines = base * args.times
    n = len(lines)
    tmp = pathlib.Path(tempfile.mkdtemp())
    big = tmp / "puzzles.txt"
    big.write_text("".join(p + "\n" for p in lines))
    out = tmp / "out.txt"
    grid = batchdoku.read(big).puzzles
    assert grid.shape == (n, 81)

    cli = lambda: subprocess.run([args.cli, "solve", "-q", "-j", "2", str(big), "-o", str(out)], check=True)
    arr = lambda: batchdoku.solve(grid, threads=2)
    lst = lambda: batchdoku.solve(lines, threads=2)
    # The answers agree before anything is timed.
    cli()
    assert out.read_text().split() == [s for s in arr().solution_strings()]

    rows = []
    for name, f in [("(N, 81) uint8 array", arr), ("list of str", lst)]:
        a, b = [], []
        for _ in range(args.runs):
            a.append(timed(f))
            b.append(timed(cli))
        ratio = statistics.median(x / y for x, y in zip(b, a))
        rows.append((name, statistics.median(a), statistics.median(b), ratio))

    print(f"{time.strftime('%Y-%m-%d')}, {cpu_name()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"numpy {np.__version__}; {n:,} puzzles ({pathlib.Path(args.dataset).name} x{args.times}), 2 threads, "
          f"{args.runs} alternated runs, medians; `python scripts/python-bench.py`\n")
    print("| input | batchdoku.solve | `batchdoku solve -j 2` file to file | rate vs CLI |")
    print("|---|---:|---:|---:|")
    for name, a, b, ratio in rows:
        print(f"| {name} | {a:.3f} s ({n / a:,.0f}/s) | {b:.3f} s ({n / b:,.0f}/s) | {ratio:.2f}x |")

    if args.peer:
        try:
            from sudoku import Sudoku  # py-sudoku
        except ImportError:
            sys.exit("--peer needs py-sudoku: pip install py-sudoku")
        few = base[:300]

        def peer():
            for p in few:
                board = [[int(c) if c not in ".0" else 0 for c in p[9 * r : 9 * r + 9]] for r in range(9)]
                Sudoku(3, 3, board=board).solve()

        a = statistics.median(timed(lambda: batchdoku.solve(few, threads=1)) for _ in range(args.runs))
        b = statistics.median(timed(peer) for _ in range(max(1, args.runs // 2)))
        print(f"\n| {len(few)} puzzles, one thread | batchdoku.solve | py-sudoku | ratio |")
        print("|---|---:|---:|---:|")
        print(f"| {pathlib.Path(args.dataset).name} | {len(few) / a:,.0f}/s | {len(few) / b:,.0f}/s | {b / a:,.0f}x |")


if __name__ == "__main__":
    main()
