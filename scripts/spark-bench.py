#!/usr/bin/env python3
"""Spark against the command line, same machine, same run (issue 15).

    python scripts/spark-bench.py [--runs 3] [--datasets ../shared/datasets]

- solve: the 17_clue file ten times as a DataFrame (one string column),
  `solve_df(df).write.parquet(OUT)` timed as a job (the session started
  and the input cached first), against `batchdoku solve -j 2 FILE -o OUT`
  (the whole process);
- generate: `generate_df(spark, 200000, seed, minimal=True).write.parquet`
  against `batchdoku generate -n 200000 --seed S --minimal -j 2 -o OUT`.
Alternates the two, takes medians, prints a Markdown table.
"""

import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--datasets", default=str(ROOT.parent / "shared" / "datasets"))
    ap.add_argument("--cli", default=str(ROOT / "target" / "release" / "batchdoku"))
    ap.add_argument("--generate", type=int, default=200_000)
    args = ap.parse_args()

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from batchdoku.spark import generate_df, solve_df

    tmp = pathlib.Path(tempfile.mkdtemp())
    src = pathlib.Path(args.datasets) / "17_clue.txt"
    lines = [l for l in src.read_text().splitlines() if l.strip() and not l.startswith("#")]
    big = tmp / "17_clue_x10.txt"
    big.write_text("".join(l + "\n" for l in lines) * 10)
    n = len(lines) * 10

    started = time.perf_counter()
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "50000")
        .config("spark.driver.memory", "4g")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    startup = time.perf_counter() - started
    df = spark.read.text(str(big)).withColumnRenamed("value", "puzzle").cache()
    assert df.count() == n
    parts = df.rdd.getNumPartitions()

    def spark_solve():
        out = tmp / "solved.parquet"
        shutil.rmtree(out, ignore_errors=True)
        t = time.perf_counter()
        solve_df(df).write.parquet(str(out))
        return time.perf_counter() - t

    def cli_solve():
        t = time.perf_counter()
        subprocess.run([args.cli, "solve", "-q", "-j", "2", str(big), "-o", str(tmp / "solved.txt")], check=True)
        return time.perf_counter() - t

    def spark_generate():
        out = tmp / "gen.parquet"
        shutil.rmtree(out, ignore_errors=True)
        t = time.perf_counter()
        generate_df(spark, args.generate, seed=7, minimal=True, partitions=8).write.parquet(str(out))
        return time.perf_counter() - t

    def cli_generate():
        t = time.perf_counter()
        subprocess.run(
            [args.cli, "generate", "-q", "-n", str(args.generate), "--seed", "7", "--minimal", "-j", "2", "-o", str(tmp / "gen.txt")],
            check=True,
        )
        return time.perf_counter() - t

    rows = []
    for name, a_f, b_f, count in [
        (f"solve 17_clue x10 ({n:,} puzzles, {parts} partitions)", spark_solve, cli_solve, n),
        (f"generate --minimal ({args.generate:,} puzzles, 8 partitions)", spark_generate, cli_generate, args.generate),
    ]:
        a_f()  # warm-up (JIT, Python workers)
        a, b = [], []
        for _ in range(args.runs):
            a.append(a_f())
            b.append(b_f())
        ratio = statistics.median(y / x for x, y in zip(a, b))
        rows.append((name, statistics.median(a), statistics.median(b), ratio, count))

    # The Spark output equals the CLI's.
    got = spark.read.parquet(str(tmp / "gen.parquet")).orderBy("index").select("puzzle").collect()
    assert [r.puzzle for r in got] == (tmp / "gen.txt").read_text().split()

    print(f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, pyspark {spark.version} local[2], "
          f"session start-up {startup:.1f} s (excluded), {args.runs} alternated runs, medians; "
          f"`python scripts/spark-bench.py`\n")
    print("| job | Spark job | `batchdoku ... -j 2` | rate vs CLI |")
    print("|---|---:|---:|---:|")
    for name, a, b, ratio, count in rows:
        print(f"| {name} | {a:.2f} s ({count / a:,.0f}/s) | {b:.2f} s ({count / b:,.0f}/s) | {ratio:.2f}x |")
    spark.stop()


if __name__ == "__main__":
    main()
