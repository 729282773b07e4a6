#!/usr/bin/env python3
"""Solve and verify a file of puzzles on Spark and write the answers as Parquet.

    spark-submit examples/spark_solve.py INPUT OUTPUT [--column NAME] [--limit N]

INPUT is a CSV file with a header (the Kaggle `quizzes,solutions` layout,
`puzzle,solution`, sudoku-extreme's `question,answer`, ...; gzip or bzip2
compressed too), a text file of one puzzle a line (.txt), or a Parquet
file or folder; the puzzle column is found by name as the command line
finds it, or named with --column. OUTPUT is a Parquet folder with the
input's columns plus status, solutions, solution, guesses and verified
(the solution checked against its puzzle).
Runs locally too: `python examples/spark_solve.py in.csv out.parquet`.
"""

import argparse
import sys

from pyspark.sql import SparkSession

from batchdoku.spark import solve_df, verify_df

PUZZLE_COLUMNS = ["puzzle", "quizzes", "question", "quiz", "sudoku"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--column", help="the puzzle column (default: found by name)")
    ap.add_argument("--limit", type=int, default=2, help="count solutions up to N (2 proves uniqueness)")
    args = ap.parse_args()

    spark = SparkSession.builder.appName("batchdoku-solve").getOrCreate()
    # Engine calls of 50,000 rows amortise the hand-over to Python.
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "50000")
    name = args.input.lower()
    if name.endswith((".csv", ".csv.gz", ".csv.bz2")):
        df = spark.read.csv(args.input, header=True)
    elif name.endswith((".txt", ".txt.gz", ".txt.bz2")):
        # As the command line reads a text file: blank lines and # comments are not records.
        lines = spark.read.text(args.input).withColumnRenamed("value", "puzzle")
        df = lines.where("trim(puzzle) != '' and not startswith(ltrim(puzzle), '#')")
    else:
        df = spark.read.parquet(args.input)
    # Spark compares names ignoring case by default: so does this search.
    by_name = {c.lower(): c for c in df.columns}
    column = args.column or next((by_name[c] for c in PUZZLE_COLUMNS if c in by_name), None)
    if column is None:
        print(f"which column holds the puzzles? {df.columns}; name it with --column", file=sys.stderr)
        return 2
    solved = solve_df(df, column, limit=args.limit)
    checked = verify_df(solved, column, "solution").drop("reason").withColumnRenamed("ok", "verified")
    checked.write.mode("overwrite").parquet(args.output)
    done = spark.read.parquet(args.output)
    counts = {r.status: r["count"] for r in done.groupBy("status").count().collect()}
    wrong = done.filter("solution is not null and not verified").count()
    print(f"{done.count()} puzzles: {counts}; {wrong} answers failed verification")
    spark.stop()
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
