#!/usr/bin/env python3
"""Deduplicate puzzles on Spark: one row per class of equivalent puzzles.

    spark-submit examples/spark_dedup.py INPUT OUTPUT [--column NAME] [--order COLUMN] [--against TRAIN]

INPUT (and TRAIN) is a CSV file with a header or a Parquet file or folder;
the puzzle column is found by name as the command line finds it, or named
with --column. Each puzzle's canonical form (batchdoku.spark.canon_df) is
the key of a shuffle, so equal classes meet on one executor whatever the
size of the data. OUTPUT/kept is a Parquet folder of the first row of each
class (first by --order, an id or line column; else by input order), with
canonical and automorphisms added; OUTPUT/dropped holds the other rows.

With --against TRAIN, OUTPUT/kept holds instead the rows of INPUT
equivalent to no puzzle of TRAIN (a leakage check between a training and a
test set), OUTPUT/dropped the ones that are.
Runs locally too: `python examples/spark_dedup.py in.csv out`.
"""

import argparse
import sys

from pyspark.sql import SparkSession

from batchdoku.spark import canon_df, dedup_df

PUZZLE_COLUMNS = ["puzzle", "quizzes", "question", "quiz", "sudoku"]


def read(spark, path):
    return spark.read.csv(path, header=True) if path.endswith(".csv") else spark.read.parquet(path)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("input")
    ap.add_argument("output")
    ap.add_argument("--column", help="the puzzle column (default: found by name)")
    ap.add_argument("--order", help="the column that says which row of a class comes first")
    ap.add_argument("--against", help="keep only rows equivalent to no puzzle of this file")
    args = ap.parse_args()

    spark = SparkSession.builder.appName("batchdoku-dedup").getOrCreate()
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "50000")
    df = read(spark, args.input)
    column = args.column or next((c for c in PUZZLE_COLUMNS if c in df.columns), None)
    if column is None:
        print(f"which column holds the puzzles? {df.columns}; name it with --column", file=sys.stderr)
        return 2
    if args.against:
        train = canon_df(read(spark, args.against), column).select("canonical").where("canonical is not null").distinct()
        forms = canon_df(df, column)
        kept = forms.join(train, "canonical", "left_anti")
        dropped = forms.join(train, "canonical", "left_semi")
    else:
        kept, dropped = dedup_df(df, column, order=args.order)
    kept.write.mode("overwrite").parquet(f"{args.output}/kept")
    dropped.write.mode("overwrite").parquet(f"{args.output}/dropped")
    n_kept = spark.read.parquet(f"{args.output}/kept").count()
    n_dropped = spark.read.parquet(f"{args.output}/dropped").count()
    what = "equivalent to a training puzzle" if args.against else "repeats of a kept puzzle"
    print(f"{n_kept} rows kept, {n_dropped} {what}")
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
