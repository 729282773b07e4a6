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

With --breakdown, where the solve job's CPU goes: the JVM's and the Python
workers' CPU seconds per job (from /proc), the JVM's by kind of thread
(task threads, JIT compilers, garbage collector), and, when the JDK's
`jcmd` and `jfr` are on PATH, the JVM's task threads by stage (Java Flight
Recorder samples over three more jobs, each sample put in the stage of its
innermost frame that names one).

With --scale 1,10,40, the solve comparison again on the 17_clue file that
many times over: how the ratio moves with the job's size (Spark's fixed
cost per job against the rate of its pipeline).

With --floor, Spark's own part of the solve job, without the engine:
the cached input written as it is, through an identity `mapInArrow`, and
through a `mapInArrow` that returns `solve_df`'s columns with the puzzle
copied into `solution` (unique 81-character strings, as real solutions
are) and constants in the others; each against `solve_df` and the command
in the same alternation. The 0.5x target needs the whole job within twice
the command's time, so this says what is left of that for the engine.

With --tasks 4,40,400, what a Spark task costs beyond its work:
`generate_df(spark, 200000, seed)` (not minimal: little work per puzzle)
on that many partitions, written to the `noop` sink, alternated; the
extra time per extra task is Spark's own cost of a Python task.

With --difficulty hard (and --difficulty-n N, 20,000 by default),
`generate_df(spark, N, seed, minimal=True, difficulty=...)` written as
Parquet on 2 and 8 partitions against `batchdoku generate --difficulty`:
the class scan is spread over the tasks, so the partitions should not
multiply the work.
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
from collections import Counter

ROOT = pathlib.Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--datasets", default=str(ROOT.parent / "shared" / "datasets"))
    ap.add_argument("--cli", default=str(ROOT / "target" / "release" / "batchdoku"))
    ap.add_argument("--generate", type=int, default=200_000)
    ap.add_argument("--breakdown", action="store_true", help="where the solve job's CPU goes (see above)")
    ap.add_argument("--scale", default="", help="comma-separated copies of 17_clue to solve as well, e.g. 1,10,40")
    ap.add_argument("--floor", action="store_true", help="Spark's part of the solve job without the engine (see above)")
    ap.add_argument("--tasks", default="", help="comma-separated partition counts for the cost of a task (see above)")
    ap.add_argument("--difficulty", default="", help="also time generate_df with this difficulty (see above)")
    ap.add_argument("--difficulty-n", type=int, default=20_000)
    args = ap.parse_args()

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from batchdoku.spark import generate_df

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

    spark_solve, cli_solve = solve_jobs(df, big, args.cli, tmp)

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
        rows.append((name, *alternate(a_f, b_f, args.runs), count))

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
    if args.breakdown:
        breakdown(spark, spark_solve, cli_solve, tmp)
    if args.floor:
        floor(df, spark_solve, cli_solve, args.runs, tmp)
    if args.scale:
        df.unpersist()
        scale(spark, args, lines, tmp)
    if args.tasks:
        task_cost(spark, [int(p) for p in args.tasks.split(",")], args.runs)
    if args.difficulty:
        by_difficulty(spark, args, tmp)
    spark.stop()


def solve_jobs(df, path: pathlib.Path, cli: str, tmp: pathlib.Path) -> tuple:
    """Two timed runs of the same work: `solve_df(df).write.parquet`
    (the job alone), and `batchdoku solve -j 2 PATH` (the whole process)."""
    from batchdoku.spark import solve_df

    def spark_solve():
        out = tmp / "solved.parquet"
        shutil.rmtree(out, ignore_errors=True)
        t = time.perf_counter()
        solve_df(df).write.parquet(str(out))
        return time.perf_counter() - t

    def cli_solve():
        t = time.perf_counter()
        subprocess.run([cli, "solve", "-q", "-j", "2", str(path), "-o", str(tmp / "solved.txt")], check=True)
        return time.perf_counter() - t

    return spark_solve, cli_solve


def alternate(a_f, b_f, runs: int) -> tuple:
    """A once to warm up (JIT, Python workers), then A B A B...: the
    medians of A and of B, and the median of B/A pair by pair."""
    a_f()
    a, b = [], []
    for _ in range(runs):
        a.append(a_f())
        b.append(b_f())
    return statistics.median(a), statistics.median(b), statistics.median(y / x for x, y in zip(a, b))


def floor(df, spark_solve, cli_solve, runs: int, tmp: pathlib.Path) -> None:
    """Spark's part of the solve job without the engine (see --floor),
    alternated with solve_df and the command, warmed up first."""

    def identity(batches):
        yield from batches

    def shaped(batches):
        # solve_df's output without solving: the puzzle stands in for the
        # solution (unique strings of the same length, so Parquet encodes
        # and compares as much), constants for the rest.
        import pyarrow as pa

        for b in batches:
            n, puzzle = b.num_rows, b.column(0)
            yield pa.RecordBatch.from_arrays(
                [puzzle, pa.array(["solved"] * n), pa.array([1] * n, pa.int32()), puzzle, pa.array([0] * n, pa.int64())],
                names=["puzzle", "status", "solutions", "solution", "guesses"],
            )

    shape = "puzzle string, status string, solutions int, solution string, guesses long"
    plans = {
        "the input written as it is": lambda: df,
        "through an identity `mapInArrow`": lambda: df.mapInArrow(identity, "puzzle string"),
        "`solve_df`'s columns, no engine": lambda: df.mapInArrow(shaped, shape),
    }

    def job(plan):
        def run():
            out = tmp / "floor.parquet"
            shutil.rmtree(out, ignore_errors=True)
            t = time.perf_counter()
            plan().write.parquet(str(out))
            return time.perf_counter() - t

        return run

    timed = {name: job(plan) for name, plan in plans.items()}
    timed.update({"`solve_df`": spark_solve, "`batchdoku solve -j 2` (whole process)": cli_solve})
    med = medians_alternated(timed, runs)
    print(f"\nSpark's part without the engine, to Parquet ({runs} alternated runs, medians):\n")
    print("| job | time |")
    print("|---|---:|")
    for name, t in med.items():
        print(f"| {name} | {t:.2f} s |")
    spark_part, solve, cli = med["`solve_df`'s columns, no engine"], med["`solve_df`"], med["`batchdoku solve -j 2` (whole process)"]
    print(f"\nThe engine adds {solve - spark_part:.2f} s to Spark's {spark_part:.2f} s; for 0.5x the job must end "
          f"within {2 * cli:.2f} s, which leaves the engine {2 * cli - spark_part:.2f} s, where the command's whole run takes {cli:.2f} s.")


def task_cost(spark, counts: list, runs: int) -> None:
    """The same 200,000 puzzles made on `counts` partitions each (see
    --tasks): the time per extra task."""
    from batchdoku.spark import generate_df

    def job(parts):
        def run():
            t = time.perf_counter()
            generate_df(spark, 200_000, seed=7, partitions=parts).write.mode("overwrite").format("noop").save()
            return time.perf_counter() - t

        return run

    med = medians_alternated({p: job(p) for p in counts}, runs)
    print(f"\ngenerate_df(spark, 200000, seed=7) to `noop` by partitions ({runs} alternated runs, medians):\n")
    print("| partitions | Spark job | per extra task |")
    print("|---:|---:|---:|")
    least = min(counts)
    for p in counts:
        extra = f"{1000 * (med[p] - med[least]) / (p - least):.0f} ms" if p != least else ""
        print(f"| {p} | {med[p]:.2f} s | {extra} |")


def medians_alternated(jobs: dict, runs: int) -> dict:
    """Each job once to warm up, then all of them in turn `runs` times:
    each job's median time, by its key."""
    for f in jobs.values():
        f()
    times = {key: [] for key in jobs}
    for _ in range(runs):
        for key, f in jobs.items():
            times[key].append(f())
    return {key: statistics.median(t) for key, t in times.items()}


def scale(spark, args, lines: list, tmp: pathlib.Path) -> None:
    """The solve comparison on the file repeated 1, 10, 40... times."""
    print("\n| copies of 17_clue | puzzles | partitions | Spark job | `batchdoku solve -j 2` | rate vs CLI |")
    print("|---:|---:|---:|---:|---:|---:|")
    for copies in [int(c) for c in args.scale.split(",")]:
        path = tmp / f"17_clue_x{copies}.txt"
        path.write_text("".join(l + "\n" for l in lines) * copies)
        df = spark.read.text(str(path)).withColumnRenamed("value", "puzzle").cache()
        n = df.count()
        a, b, ratio = alternate(*solve_jobs(df, path, args.cli, tmp), args.runs)
        print(f"| {copies} | {n:,} | {df.rdd.getNumPartitions()} | {a:.2f} s | {b:.2f} s | {ratio:.2f}x |")
        df.unpersist()
        path.unlink()


def by_difficulty(spark, args, tmp: pathlib.Path) -> None:
    """generate_df with a difficulty on 2 and 8 partitions against the
    command, and the rows checked equal to its lines."""
    from batchdoku.spark import generate_df

    n, cls = args.difficulty_n, args.difficulty
    out, text = tmp / "class.parquet", tmp / "class.txt"

    def cli_generate():
        t = time.perf_counter()
        subprocess.run(
            [args.cli, "generate", "-q", "-n", str(n), "--seed", "7", "--minimal", "--difficulty", cls, "-j", "2", "-o", str(text)],
            check=True,
        )
        return time.perf_counter() - t

    print(f"\n| generate_df --minimal --difficulty {cls} ({n:,} puzzles) | Spark job | `batchdoku generate -j 2` | rate vs CLI |")
    print("|---|---:|---:|---:|")
    for parts in (2, 8):

        def spark_generate():
            shutil.rmtree(out, ignore_errors=True)
            t = time.perf_counter()
            generate_df(spark, n, seed=7, minimal=True, difficulty=cls, partitions=parts).write.parquet(str(out))
            return time.perf_counter() - t

        a, b, ratio = alternate(spark_generate, cli_generate, args.runs)
        got = spark.read.parquet(str(out)).orderBy("index").select("puzzle").collect()
        assert [r.puzzle for r in got] == text.read_text().split()
        print(f"| {parts} partitions | {a:.2f} s | {b:.2f} s | {ratio:.2f}x |")


def cpu_seconds(pid: int, with_children: bool = False) -> float:
    """User + system CPU of a process (and of its children that it has
    reaped), from /proc."""
    return stat_cpu(pathlib.Path(f"/proc/{pid}/stat"), with_children)


def stat_cpu(stat: pathlib.Path, with_children: bool = False) -> float:
    """User + system CPU in a /proc `stat` file, a process's or a thread's."""
    fields = stat.read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if with_children else 0)
    return ticks / os.sysconf("SC_CLK_TCK")


def descendants(root: int) -> list:
    """The live processes below `root` (the Python workers of a JVM)."""
    parent = {}
    for d in pathlib.Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                parent[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    found, todo = [], [root]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        found += kids
        todo += kids
    return found


def workers_cpu(jvm: int) -> float:
    # A reaped worker's time sits in its live parent's children's time.
    total = 0.0
    for pid in descendants(jvm):
        try:
            total += cpu_seconds(pid, with_children=True)
        except OSError:
            pass
    return total


# Stages of the JVM's work in a solve job, by the classes in a sample's
# frames: the first rule matching the innermost such frame wins.
STAGES = [
    ("Parquet writing (encoding, statistics, compression)", ("org/apache/parquet", "ParquetWriteSupport", "ParquetOutputWriter")),
    ("rows copied to UnsafeRow for the writer", ("SpecificUnsafeProjection", "UnsafeWriter", "UnsafeRowWriter")),
    ("input rows to Arrow for the Python workers", ("BatchedPythonArrowInput", "arrow/ArrowWriter", "arrow/StructWriter", "ArrowFieldWriter", "StringWriter")),
    ("Arrow from the Python workers read as rows", ("ArrowColumnVector", "ColumnarBatchRow", "ArrowStreamReader", "MessageSerializer", "PythonArrowOutput", "arrow/memory/ArrowBuf")),
    ("file output and write-task bookkeeping", ("FileFormatDataWriter", "SingleDirectoryDataWriter", "BasicWriteTaskStatsTracker", "hadoop/fs")),
    ("cached input read", ("execution/columnar",)),
]


def jvm_threads_cpu(jvm: int) -> Counter:
    """CPU seconds of the JVM's threads by kind, from their names in /proc
    (HotSpot names its JIT compiler and collector threads)."""
    kinds = Counter()
    for task in pathlib.Path(f"/proc/{jvm}/task").iterdir():
        try:
            name = (task / "comm").read_text().strip()
            seconds = stat_cpu(task / "stat")
        except OSError:
            continue
        if name.startswith("Executor task"):
            kinds["task threads"] += seconds
        elif "CompilerThre" in name:
            kinds["JIT compilers"] += seconds
        elif name.startswith(("GC ", "G1 ")):
            kinds["garbage collector"] += seconds
        else:
            kinds["other threads"] += seconds
    return kinds


def breakdown(spark, spark_solve, cli_solve, tmp: pathlib.Path) -> None:
    jvm = int(spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid())
    runs, jvm_cpu, py_cpu, wall = 3, [], [], []
    threads0 = jvm_threads_cpu(jvm)
    for _ in range(runs):
        j0, p0 = cpu_seconds(jvm), workers_cpu(jvm)
        wall.append(spark_solve())
        jvm_cpu.append(cpu_seconds(jvm) - j0)
        py_cpu.append(workers_cpu(jvm) - p0)
    threads = jvm_threads_cpu(jvm)
    threads.subtract(threads0)
    cli = []
    for _ in range(runs):
        t0 = os.times()
        cli_solve()
        t1 = os.times()
        cli.append(t1.children_user + t1.children_system - t0.children_user - t0.children_system)
    med = statistics.median
    print(f"\nsolve job, {runs} runs, medians: {med(wall):.2f} s; JVM {med(jvm_cpu):.2f} CPU-s, "
          f"Python workers {med(py_cpu):.2f} CPU-s; `batchdoku solve -j 2` {med(cli):.2f} CPU-s")
    print("The JVM's CPU per job by thread: " + ", ".join(f"{k} {v / runs:.2f} s" for k, v in threads.most_common()))
    if not (shutil.which("jcmd") and shutil.which("jfr")):
        print("(no jcmd/jfr on PATH: the JVM's stages need a JDK)")
        return
    import json

    rec = tmp / "solve.jfr"
    subprocess.run(["jcmd", str(jvm), "JFR.start", "name=batchdoku", "settings=profile", f"filename={rec}"], check=True, capture_output=True)
    for _ in range(3):
        spark_solve()
    subprocess.run(["jcmd", str(jvm), "JFR.stop", "name=batchdoku"], check=True, capture_output=True)
    out = subprocess.run(["jfr", "print", "--json", "--events", "jdk.ExecutionSample", str(rec)], check=True, capture_output=True, text=True).stdout
    stages = Counter()
    for event in json.loads(out)["recording"]["events"]:
        thread = event["values"]["sampledThread"]["javaName"] or ""
        if not thread.startswith(("Executor task", "stdout writer")):
            stages["other threads (scheduler, listeners)"] += 1
            continue
        frames = [f["method"]["type"]["name"] + "." + f["method"]["name"] for f in event["values"]["stackTrace"]["frames"]]
        stage = next((name for f in frames for name, keys in STAGES if any(k in f for k in keys)), "other (task set-up, iterators)")
        stages[stage] += 1
    total = sum(stages.values())
    print(f"\nThe JVM's samples ({total}, Flight Recorder, 3 jobs):\n")
    print("| stage | share |")
    print("|---|---:|")
    for name, count in stages.most_common():
        print(f"| {name} | {100 * count / total:.0f}% |")


if __name__ == "__main__":
    main()
