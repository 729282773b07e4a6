"""batchdoku.spark on a real local Spark (local[2], started here), and the
CLI as an RDD.pipe filter. Skipped, saying why, without pyspark or Java."""

import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import batchdoku
from conftest import SAMPLE, run_cli
from test_solve import EMPTY, INVALID, PUZZLE, SOLUTION, UNSOLVABLE

pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    pytest.skip("no Java: Spark needs a JRE (apt-get install -y openjdk-17-jre-headless)", allow_module_level=True)

from pyspark.sql import SparkSession  # noqa: E402

from batchdoku.spark import generate_df, grade_df, rate_df, solve_df, verify_df  # noqa: E402

pytestmark = pytest.mark.spark


@pytest.fixture(scope="session")
def spark():
    # Workers start the python3 on PATH unless told: use this interpreter.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    s = (
        SparkSession.builder.master("local[2]")
        .appName("batchdoku-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.bindAddress", "127.0.0.1")
        # Small batches, so every function meets several per partition.
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "7")
        .getOrCreate()
    )
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


KINDS = [PUZZLE, EMPTY, UNSOLVABLE, INVALID, "garbage", None, ""]


def test_solve_df_matches_solve_on_every_kind_of_record(spark, sample_lines):
    puzzles = KINDS + sample_lines[:60]
    df = spark.createDataFrame([(i, p) for i, p in enumerate(puzzles)], "id long, puzzle string").repartition(3)
    got = sorted(solve_df(df, limit=2).collect(), key=lambda r: r.id)
    want = batchdoku.solve(puzzles, limit=2)
    assert [r.id for r in got] == list(range(len(puzzles)))
    assert [r.puzzle for r in got] == puzzles
    assert [r.status for r in got] == want.status.tolist()
    assert [r.solutions for r in got] == want.count.tolist()
    assert [r.solution for r in got] == want.solution_strings()
    assert [r.guesses for r in got] == want.guesses.tolist()
    assert got[0].solution == SOLUTION
    assert [r.status for r in got[:7]] == ["unique", "multiple", "unsolvable", "invalid", "malformed", "malformed", "malformed"]
    types = dict(solve_df(df).dtypes)
    assert (types["status"], types["solutions"], types["solution"], types["guesses"]) == ("string", "int", "string", "bigint")


def test_rate_and_verify_df(spark, sample_lines):
    puzzles = sample_lines[:40] + [INVALID, "bad"]
    df = spark.createDataFrame([(p,) for p in puzzles], "puzzle string")
    rated = rate_df(df).collect()
    want = batchdoku.rate(puzzles)
    assert [r.difficulty for r in rated] == want.difficulty.tolist()
    assert [r.inference for r in rated] == want.inference.tolist()
    assert [r.guesses for r in rated] == want.guesses.tolist()
    solved = solve_df(df).select("puzzle", "solution")
    answers = [r.solution for r in solved.collect()]
    answers[3] = answers[4]  # a wrong answer
    pairs = spark.createDataFrame(list(zip(puzzles, answers)), "puzzle string, solution string")
    checked = verify_df(pairs).collect()
    assert [r.ok for r in checked].count(False) == 3  # the wrong one, and no answer for invalid and bad
    assert checked[3].ok is False and "changed the given" in checked[3].reason
    assert checked[0].ok is True and checked[0].reason is None


def test_grade_df_adds_what_grade_gives(spark, sample_lines):
    puzzles = sample_lines[:60] + [INVALID, "bad", None]
    df = spark.createDataFrame([(p,) for p in puzzles], "puzzle string")
    got = grade_df(df, steps=True).collect()
    want = batchdoku.grade(puzzles[:-1], steps=True)
    assert [r.status for r in got[:-1]] == want.status.tolist()
    assert [r.er for r in got[:-1]] == [None if np.isnan(x) else x for x in want.er]
    assert [r.hardest for r in got[:-1]] == [h or None for h in want.hardest]
    paths = want.steps.to_pylist()
    for row, path in zip(got, paths):
        assert [s.asDict(recursive=True) for s in row.steps] == path
    assert got[-1].er is None
    types = dict(grade_df(df).dtypes)
    assert (types["status"], types["er"], types["hardest"]) == ("string", "double", "string")
    assert "steps" not in types


def test_generate_df_with_an_er_range_equals_the_cli(spark, cli):
    want = run_cli(cli, "generate", "-n", "6", "--seed", "11", "--er", "3.0-4.5", "-q").split()
    df = generate_df(spark, 6, seed=11, partitions=3, er="3.0-4.5")
    assert [r.puzzle for r in df.orderBy("index").collect()] == want


def test_bad_columns_are_refused_on_the_driver(spark, tmp_path):
    df = spark.createDataFrame([(1, PUZZLE)], "n long, quizzes string")
    with pytest.raises(ValueError, match="no column 'puzzle'"):
        solve_df(df)
    with pytest.raises(TypeError, match="not a string column"):
        solve_df(df, "n")
    with pytest.raises(TypeError, match="a column name .str. was expected, not Column"):
        solve_df(df, pyspark.sql.functions.col("quizzes"))
    # Digit strings read by inferSchema come as doubles: the error says why.
    csv = tmp_path / "kaggle.csv"
    csv.write_text("quizzes,solutions\n" + PUZZLE.replace(".", "0") + "," + "1" * 81 + "\n")
    inferred = spark.read.csv(str(csv), header=True, inferSchema=True)
    with pytest.raises(TypeError, match="column 'quizzes' is double.*inferSchema"):
        solve_df(inferred, "quizzes")
    # A column named like one added is kept as input_NAME.
    twice = solve_df(solve_df(df, "quizzes"), "quizzes")
    assert twice.columns == ["n", "quizzes", "input_status", "input_solutions", "input_solution", "input_guesses", "status", "solutions", "solution", "guesses"]



def test_verify_df_reads_the_status_solve_df_wrote(spark, cli, tmp_path, sample_lines):
    """verify_df(solve_df(df)) passes every right row, unsolvable, invalid
    and malformed ones too: solve_df's status (and solutions count) are the
    claim, as the command line reads them from the same table; a false
    status or count fails with the command line's reason."""
    from pyspark.sql import functions as F

    puzzles = KINDS + sample_lines[:20]
    df = spark.createDataFrame([(i, p) for i, p in enumerate(puzzles)], "id long, puzzle string").repartition(3)
    for limit in (1, 2, 3):
        checked = verify_df(solve_df(df, limit=limit)).collect()
        assert all(r.ok for r in checked), [(r.puzzle, r.status, r.reason) for r in checked if not r.ok]
    # status=False: the solutions alone, which cannot say why there is none
    alone = sorted(verify_df(solve_df(df), status=False).where("not ok").collect(), key=lambda r: r.id)
    assert [r.id for r in alone] == [2, 3, 4, 5, 6]
    assert {r.reason for r in alone} == {"the answer is missing (None)"}
    # Names in any case; a count as text.
    renamed = solve_df(df).withColumnRenamed("status", "Status").withColumnRenamed("solution", "SOLUTION")
    renamed = renamed.withColumn("solutions", F.col("solutions").cast("string"))
    assert verify_df(renamed).where("not ok").count() == 0
    # A status column that is not text is someone else's: not a claim.
    own = solve_df(df).withColumn("status", F.lit(7))
    assert verify_df(own).where("not ok").count() == 5

    # False claims: the reasons the command line gives for the same table.
    id_ = F.col("id")
    tampered = (
        solve_df(df, limit=2)
        .withColumn("status", F.when(id_ == 0, "unsolvable").when(id_ == 2, "unique").when(id_ == 3, "malformed").when(id_ == 4, "invalid").otherwise(F.col("status")))
        .withColumn("solutions", F.when(id_ == 0, F.lit(0)).when(id_ == 1, F.lit(1)).when(id_ == 7, F.lit(3)).otherwise(F.col("solutions")))
    )
    reasons = {r.id: r.reason for r in verify_df(tampered).collect() if not r.ok}
    assert sorted(reasons) == [0, 1, 2, 3, 4, 7]
    assert reasons[0] == "claimed unsolvable but has a solution"
    assert reasons[3] == "claimed malformed but the puzzle parses"
    assert reasons[4] == "puzzle is malformed (bad character 'g' at column 1) but the answer does not say so"
    out = tmp_path / "tampered"
    tampered.orderBy("id").coalesce(1).write.parquet(str(out))
    checked = subprocess.run([cli, "verify", str(out)], capture_output=True, text=True)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    cli_reasons = {}
    for line in checked.stdout.splitlines():
        if line.startswith("record "):
            n, rest = line[len("record ") :].split(" ", 1)
            cli_reasons[int(n) - 1] = rest.split("): ", 1)[1]
    assert cli_reasons == reasons, checked.stdout
    # Columns named: any answer column with any status column.
    named = tampered.withColumnRenamed("status", "claimed").withColumnRenamed("solution", "answer")
    assert {r.id: r.reason for r in verify_df(named, answer="answer", status="claimed").collect() if not r.ok} == reasons
    with pytest.raises(ValueError, match="no column 'nope'"):
        verify_df(named, answer="answer", status="nope")
    with pytest.raises(TypeError, match="not a string column of status words"):
        verify_df(named, answer="answer", status="id")
    with pytest.raises(TypeError, match="status: a column name"):
        verify_df(named, status=3)


def test_bad_arguments_are_refused_on_the_driver(spark):
    df = spark.createDataFrame([(PUZZLE,)], "puzzle string")
    for limit, kind in [(2**32, ValueError), (0, ValueError), (True, TypeError), (2.0, TypeError)]:
        with pytest.raises(kind, match="limit"):
            solve_df(df, limit=limit)
    with pytest.raises(TypeError, match="solver"):
        solve_df(df, solver=None)
    for value, kind in [(2**63 + 1, ValueError), (-1, ValueError), (1.0, TypeError), (True, TypeError)]:
        with pytest.raises(kind, match="n: "):
            generate_df(spark, value, seed=1)
    for value, kind in [(2.5, TypeError), (True, TypeError), (-1, ValueError), ("3", TypeError), (2**31, ValueError)]:
        with pytest.raises(kind, match="partitions"):
            generate_df(spark, 10, seed=1, partitions=value)
    for value, kind in [(True, TypeError), (82, ValueError)]:
        with pytest.raises(kind, match="min_clues"):
            generate_df(spark, 10, seed=1, min_clues=value)
    with pytest.raises(ValueError, match="symmetry"):
        generate_df(spark, 10, seed=1, symmetry="\ud800")
    assert generate_df(spark, 3, seed=1, partitions=0).count() == 3


def dedup_folder(spark, cli, folder, **options):
    """dedup_df on spark.read.text(folder) against `batchdoku dedup folder`:
    the kept rows and the dropped ones are the same puzzles."""
    from batchdoku.spark import dedup_df

    df = spark.read.text(str(folder), **options).withColumnRenamed("value", "puzzle")
    kept, dropped = dedup_df(df)
    cli_kept = run_cli(cli, "dedup", "-q", str(folder)).splitlines()
    assert sorted(r.puzzle for r in kept.collect()) == sorted(cli_kept)
    assert dropped.count() == df.count() - len(cli_kept)
    return cli_kept


def test_dedup_df_keeps_the_first_row_in_the_order_the_cli_reads_files(spark, cli, tmp_path, sample_lines):
    """Spark reads a folder's files largest first; dedup_df's "first" is
    the command line's all the same: part files in name order, Hive-style
    subfolders where their names fall, then rows in file order."""
    import random

    from test_canon import disguise

    rng = random.Random(8)
    first = sample_lines[:3]
    later = [disguise(p, rng) for p in first] + sample_lines[3:60]
    # A small part-00000 and a big part-00001.
    parts = tmp_path / "parts"
    parts.mkdir()
    (parts / "part-00000.txt").write_text("\n".join(first) + "\n")
    (parts / "part-00001.txt").write_text("\n".join(later) + "\n")
    (parts / "_SUCCESS").write_text("")
    assert set(first) <= set(dedup_folder(spark, cli, parts))
    # Subfolders: k=1 before k=1-b (as names), though "k=1-b/" < "k=1/" as paths.
    hive = tmp_path / "hive"
    for name, rows in (("k=1", first), ("k=1-b", later)):
        (hive / name).mkdir(parents=True)
        (hive / name / "part-00000.txt").write_text("\n".join(rows) + "\n")
    assert set(first) <= set(dedup_folder(spark, cli, hive))
    # One file cut into many splits: the rows in file order still.
    rows = sample_lines[:40]
    rows = rows + [disguise(p, rng) for p in rows[::-1]]
    one = tmp_path / "one"
    one.mkdir()
    (one / "part-00000.txt").write_text("\n".join(rows) + "\n")
    spark.conf.set("spark.sql.files.maxPartitionBytes", "1000")
    try:
        assert dedup_folder(spark, cli, one) == rows[:40]
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")

@pytest.mark.parametrize("partitions", [1, 3, 7])
def test_generate_df_equals_the_cli_whatever_the_partitions(spark, cli, partitions):
    n = 45
    want = run_cli(cli, "generate", "-q", "-n", str(n), "--seed", "5", "--minimal", "--with-solution").splitlines()
    df = generate_df(spark, n, seed=5, partitions=partitions, minimal=True, with_solution=True)
    assert df.rdd.getNumPartitions() == partitions
    rows = sorted(df.collect(), key=lambda r: r["index"])
    assert [r["index"] for r in rows] == list(range(n))
    assert [f"{r.puzzle},{r.solution}" for r in rows] == want


@pytest.mark.parametrize("partitions", [1, 3])
def test_generate_df_with_a_difficulty_equals_the_cli(spark, cli, partitions):
    # The candidates are rated by rounds of jobs, each task its own range,
    # then only the kept ones are made: the same puzzles as the command's
    # one scan, whatever the partitions.
    n = 40
    want = run_cli(cli, "generate", "-q", "-n", str(n), "--seed", "5", "--minimal", "--difficulty", "medium", "--with-solution").splitlines()
    df = generate_df(spark, n, seed=5, partitions=partitions, minimal=True, difficulty="medium", with_solution=True)
    rows = sorted(df.collect(), key=lambda r: r["index"])
    assert [f"{r.puzzle},{r.solution}" for r in rows] == want
    assert batchdoku.rate([r.puzzle for r in rows]).difficulty.tolist() == ["medium"] * n
    # A class the options cannot reach: the same error as batchdoku.generate.
    with pytest.raises(ValueError) as python:
        batchdoku.generate(1, seed=5, min_clues=40, difficulty="extreme")
    with pytest.raises(ValueError) as spark_error:
        generate_df(spark, 1, seed=5, partitions=partitions, min_clues=40, difficulty="extreme")
    assert str(spark_error.value) == str(python.value)
    assert "found only 0 of 1 puzzles in 2000 candidates" in str(python.value)


def test_a_kaggle_csv_round_trip_through_parquet(spark, tmp_path, sample_lines):
    lines = sample_lines[:100]
    solutions = batchdoku.solve(lines).solution_strings()
    csv = tmp_path / "kaggle.csv"
    csv.write_text("quizzes,solutions\n" + "".join(f"{p.replace('.', '0')},{s}\n" for p, s in zip(lines, solutions)))
    df = spark.read.csv(str(csv), header=True)
    out = str(tmp_path / "solved.parquet")
    solve_df(df, "quizzes").write.parquet(out)
    back = spark.read.parquet(out)
    assert back.count() == 100
    assert verify_df(back, "quizzes", "solution").filter("not ok").count() == 0
    # The Kaggle file's own solutions column is kept as input_solutions.
    assert verify_df(back, "quizzes", "input_solutions").filter("not ok").count() == 0
    # The command line reads what Spark wrote.
    assert batchdoku.read(next(p for p in (tmp_path / "solved.parquet").glob("*.parquet") if p.stat().st_size), column="solution").malformed == []


def test_compressed_spark_parts_are_read_by_the_cli(spark, cli, tmp_path, sample_lines):
    """Text and CSV folders that Spark writes with Hadoop's codecs (bzip2,
    the splittable one, and gzip) are read by the command line as one
    input, part after part in row order; a wrong answer in a CSV part is
    found and its part file named."""
    from pyspark.sql import functions as F

    lines = sample_lines[:60]
    want = batchdoku.solve(lines).solution_strings()
    df = spark.createDataFrame([(i, p) for i, p in enumerate(lines)], "id long, puzzle string")
    df = df.repartitionByRange(3, "id").sortWithinPartitions("id")
    for codec in ("bzip2", "gzip"):
        text = tmp_path / f"text-{codec}"
        df.select("puzzle").write.option("compression", codec).text(str(text))
        assert len([p for p in text.iterdir() if p.name.startswith("part-")]) == 3
        assert run_cli(cli, "solve", "-q", str(text)).split() == want
        solved = solve_df(df)
        if codec == "bzip2":
            # one wrong answer: row 17 carries row 18's solution
            solved = solved.withColumn("solution", F.when(F.col("id") == 17, F.lit(want[18])).otherwise(F.col("solution")))
        table = tmp_path / f"csv-{codec}"
        solved.write.option("compression", codec).csv(str(table), header=True)
        checked = subprocess.run([cli, "verify", str(table)], capture_output=True, text=True)
        if codec == "gzip":
            assert checked.returncode == 0 and "60 passed" in checked.stdout, checked.stdout + checked.stderr
        else:
            assert checked.returncode == 1 and "59 passed, 1 failed" in checked.stdout, checked.stdout + checked.stderr
            assert ".csv.bz2" in checked.stdout + checked.stderr


def test_solve_df_on_a_stream(spark, tmp_path, sample_lines):
    """A streaming DataFrame (Structured Streaming, files arriving in a
    folder) goes through solve_df and verify_df like a static one: every
    row gets its answer."""
    lines = sample_lines[:50]
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    (incoming / "a.txt").write_text("\n".join(lines[:30]) + "\n")
    (incoming / "b.txt").write_text("\n".join(lines[30:]) + "\n")
    stream = spark.readStream.text(str(incoming)).withColumnRenamed("value", "puzzle")
    query = (
        verify_df(solve_df(stream), "puzzle", "solution")
        .writeStream.format("memory")
        .queryName("solved_stream")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination()
    rows = spark.sql("select puzzle, solution, ok from solved_stream").collect()
    want = dict(zip(lines, batchdoku.solve(lines).solution_strings()))
    assert sorted(r.puzzle for r in rows) == sorted(lines)
    assert all(r.solution == want[r.puzzle] and r.ok for r in rows)
    # dedup_df ranks rows in a window, which streams do not have: refused
    # on the driver, naming what does work on a stream.
    from batchdoku.spark import dedup_df

    with pytest.raises(ValueError, match="dropDuplicates"):
        dedup_df(stream)


def test_rdd_pipe_through_the_cli_equals_solve_on_the_file(spark, cli):
    lines = [l for l in SAMPLE.read_text().splitlines() if l.strip() and not l.startswith("#")]
    want = run_cli(cli, "solve", "-q", str(SAMPLE)).splitlines()
    got = spark.sparkContext.parallelize(lines, 3).pipe(f"{cli} solve -q -").collect()
    assert got == want
    rated = spark.sparkContext.parallelize(lines[:50], 2).pipe(f"{cli} rate -q --format jsonl -").collect()
    assert len(rated) == 50
    # verify with embedded answers: ok or wrong, a line per record.
    pairs = [f"{p[:81]},{s}" for p, s in zip(lines, want)]
    pairs[7] = pairs[8][:82] + want[7]
    checked = spark.sparkContext.parallelize(pairs, 3).pipe(f"{cli} verify --format lines -").collect()
    assert len(checked) == len(pairs)
    assert [i for i, c in enumerate(checked) if c != "ok"] == [7]
    assert checked[7].startswith("wrong: ")
    # The `batchdoku` command the package installs runs the same command
    # line: a cluster that has the wheel has the filter.
    installed = pathlib.Path(sys.executable).parent / "batchdoku"
    assert spark.sparkContext.parallelize(lines, 3).pipe(f"{installed} solve -q -").collect() == want


def test_canon_df_and_dedup_df_find_the_planted_classes(spark, cli, tmp_path, sample_lines):
    import random

    from batchdoku.spark import canon_df, dedup_df
    from test_canon import disguise

    rng = random.Random(15)
    base = sample_lines[:40] + [EMPTY, UNSOLVABLE]
    rows = base + [disguise(rng.choice(base), rng) for _ in range(80)]
    rng.shuffle(rows)
    puzzles = rows + [INVALID, "garbage", None]
    df = spark.createDataFrame([(i, p) for i, p in enumerate(puzzles)], "line long, puzzle string").repartition(3)
    got = sorted(canon_df(df).collect(), key=lambda r: r.line)
    want = batchdoku.canon(puzzles[:-1])
    assert [r.canonical for r in got] == want.form_strings() + [None]
    assert [r.automorphisms for r in got[:-1]] == [int(a) if s == "ok" else None for a, s in zip(want.automorphisms, want.status)]

    # dedup_df keeps what the command line keeps (bad rows aside: the CLI
    # leaves them out, the DataFrame keeps them), and says what each
    # dropped row repeats.
    path = tmp_path / "rows.txt"
    path.write_text("\n".join(rows) + "\n")
    report = tmp_path / "dropped.csv"
    cli_kept = run_cli(cli, "dedup", "-q", str(path), "--report", str(report)).splitlines()
    kept, dropped = dedup_df(df, order="line")
    kept_rows = sorted(kept.collect(), key=lambda r: r.line)
    assert [r.puzzle for r in kept_rows] == cli_kept + [INVALID, "garbage", None]
    cli_dropped = {int(f[1]) - 1: int(f[3]) - 1 for f in (l.split(",") for l in report.read_text().splitlines()[1:])}
    assert {r.line: r.duplicate_of for r in dropped.collect()} == cli_dropped
    # Without an order: input order, the same rows.
    kept, dropped = dedup_df(spark.createDataFrame([(p,) for p in rows], "puzzle string"))
    assert sorted(r.puzzle for r in kept.collect()) == sorted(cli_kept)
    assert dropped.count() == len(rows) - len(cli_kept)


def test_dotted_names_and_tied_orders(spark, sample_lines):
    """A dot in a column's name is part of the name (pyspark's own
    mapInArrow would read `a.b` as field b of a struct a), and rows tied on
    dedup_df's `order` still keep one row per class."""
    from batchdoku.spark import dedup_df

    lines = sample_lines[:12]
    df = spark.createDataFrame([(i % 3, p, i) for i, p in enumerate(lines)], "`batch.no` long, `the.puzzle` string, id long")
    solved = solve_df(df, "the.puzzle")
    assert solved.columns == ["batch.no", "the.puzzle", "id", "status", "solutions", "solution", "guesses"]
    rows = sorted(solved.collect(), key=lambda r: r.id)
    assert [r["batch.no"] for r in rows] == [i % 3 for i in range(12)]
    assert [r.solution for r in rows] == batchdoku.solve(lines).solution_strings()
    assert all(r.ok for r in verify_df(solved, "the.puzzle", "solution").collect())
    kept, dropped = dedup_df(df.union(df), "the.puzzle", order="batch.no")
    assert sorted(r.id for r in kept.collect()) == list(range(12))
    assert sorted((r.id, r.duplicate_of) for r in dropped.collect()) == [(i, i % 3) for i in range(12)]


def test_column_names_match_as_the_session_matches_them(spark, tmp_path, sample_lines):
    """Spark compares names ignoring case by default: `Puzzle` is found as
    `puzzle`, and a `Solution` column is kept as `input_Solution` (beside
    it, the added `solution` would be the same name: the result could not
    be written). Two columns of the name asked for are refused."""
    from batchdoku.spark import dedup_df

    lines = sample_lines[:8]
    df = spark.createDataFrame([(i, p, "old", "mine") for i, p in enumerate(lines)], "Id long, Puzzle string, Solution string, duplicate_of string")
    solved = solve_df(df)
    assert solved.columns == ["Id", "Puzzle", "input_Solution", "duplicate_of", "status", "solutions", "solution", "guesses"]
    solved.write.parquet(str(tmp_path / "solved.parquet"))
    back = sorted(spark.read.parquet(str(tmp_path / "solved.parquet")).collect(), key=lambda r: r.Id)
    assert [r.solution for r in back] == batchdoku.solve(lines).solution_strings()
    assert {r.input_Solution for r in back} == {"old"}
    # The package (and the command line) read Spark's output folder as its
    # part files in name order: the rows in order.
    read = batchdoku.read(tmp_path / "solved.parquet", column="Puzzle")
    assert batchdoku.solve(read.puzzles).solution_strings() == batchdoku.solve(lines).solution_strings()
    assert all(r.ok for r in verify_df(solved, "PUZZLE", "SOLUTION").collect())
    # dedup_df's own duplicate_of leaves the input's under input_duplicate_of
    kept, dropped = dedup_df(df.union(df), "puzzle", order="id")
    assert sorted(r.Id for r in kept.collect()) == list(range(8))
    assert sorted((r.Id, r.duplicate_of, r.input_duplicate_of) for r in dropped.collect()) == [(i, i, "mine") for i in range(8)]
    with pytest.raises(ValueError, match="names 2 columns"):
        solve_df(spark.createDataFrame([(lines[0], lines[0])], "x string, x string"), "x")
    spark.conf.set("spark.sql.caseSensitive", "true")
    try:
        with pytest.raises(ValueError, match="no column 'puzzle'"):
            solve_df(df)
        assert "Solution" in solve_df(df, "Puzzle").columns
    finally:
        spark.conf.unset("spark.sql.caseSensitive")


def test_arrays_of_digits(spark, tmp_path, sample_lines):
    """array<int> columns (81 cells) and array<array<int>> (nine rows of
    nine), from Python and from a pyarrow Parquet file of list<int8>."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from batchdoku.spark import canon_df

    lines = sample_lines[:30]
    want = batchdoku.solve(lines, limit=2)
    flat = [[0 if c == "." else int(c) for c in p] for p in lines]
    df = spark.createDataFrame([(i, f, [f[r : r + 9] for r in range(0, 81, 9)]) for i, f in enumerate(flat)] + [(30, None, None), (31, flat[0][:80], [flat[0][:9]])], "i int, cells array<int>, grid array<array<int>>")
    for column in ["cells", "grid"]:
        got = sorted(solve_df(df, column, limit=2).collect(), key=lambda r: r.i)
        assert [r.solution for r in got[:30]] == want.solution_strings(), column
        assert [r.status for r in got] == want.status.tolist() + ["malformed", "malformed"], column
    # every row right: the two malformed ones say so in their status
    assert [r.ok for r in verify_df(solve_df(df, "cells"), "cells", "solution").collect()].count(True) == 32
    assert [r.ok for r in verify_df(solve_df(df, "cells"), "cells", "solution", status=False).collect()].count(True) == 30
    assert sorted(r.canonical for r in canon_df(df, "grid").collect() if r.canonical) == sorted(batchdoku.canon(lines).form_strings())
    pq.write_table(pa.table({"id": list(range(30)), "quiz": pa.array(flat, pa.list_(pa.int8()))}), tmp_path / "cells.parquet")
    read = spark.read.parquet(str(tmp_path / "cells.parquet"))
    assert sorted((r.id, r.solution) for r in solve_df(read, "quiz").collect()) == list(enumerate(batchdoku.solve(lines).solution_strings()))
    with pytest.raises(TypeError, match="array<double>"):
        solve_df(spark.createDataFrame([([1.0] * 81,)], "p array<double>"), "p")


def test_the_solve_example_runs(spark, tmp_path, sample_lines):
    """examples/spark_solve.py in local mode on the three layouts it reads:
    a gzipped Kaggle CSV, a text file with comments, a pyarrow Parquet (its column
    named with a capital, as Spark matches names ignoring case)."""
    import gzip

    import pyarrow as pa
    import pyarrow.parquet as pq

    lines = sample_lines[:40]
    given = batchdoku.solve(lines).solution_strings()
    with gzip.open(tmp_path / "kaggle.csv.gz", "wt") as f:
        f.write("quizzes,solutions\n" + "".join(f"{p.replace('.', '0')},{s}\n" for p, s in zip(lines, given)))
    (tmp_path / "lines.txt").write_text("# a comment\n\n" + "\n".join(lines[:10]) + "\nnot a puzzle\n")
    pq.write_table(pa.table({"id": list(range(40)), "Question": pa.array(lines, pa.large_string())}), tmp_path / "p.parquet")
    example = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "spark_solve.py")
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    for name, rows, summary in [
        ("kaggle.csv.gz", 40, "40 puzzles: {'unique': 40}; 0 answers failed"),
        ("lines.txt", 11, "11 puzzles: {"),
        ("p.parquet", 40, "40 puzzles: {'unique': 40}; 0 answers failed"),
    ]:
        out = subprocess.run([sys.executable, example, str(tmp_path / name), str(tmp_path / (name + ".out"))], capture_output=True, text=True, env=env)
        assert out.returncode == 0 and summary in out.stdout, out.stdout + out.stderr
        back = spark.read.parquet(str(tmp_path / (name + ".out")))
        assert back.count() == rows
        assert {"status", "solutions", "solution", "guesses", "verified"} <= set(back.columns)
    kaggle = spark.read.parquet(str(tmp_path / "kaggle.csv.gz.out")).collect()
    assert all(r.solution == r.input_solutions and r.verified for r in kaggle)
    # The package reads the gzipped CSV itself too.
    assert batchdoku.solve(batchdoku.read(tmp_path / "kaggle.csv.gz").puzzles).solution_strings() == given
    text = spark.read.parquet(str(tmp_path / "lines.txt.out")).collect()
    assert sorted(r.status for r in text) == ["malformed"] + ["unique"] * 10


def test_the_dedup_example_runs(spark, tmp_path, sample_lines):
    """examples/spark_dedup.py in local mode, on a CSV with copies of its
    rows, and against a training file."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import random

    from test_canon import disguise

    rng = random.Random(3)
    base = sample_lines[:30]
    test_rows = base + [disguise(p, rng) for p in base[:10]]
    pacsv.write_csv(pa.table({"id": list(range(len(test_rows))), "quizzes": test_rows}), tmp_path / "test.csv")
    pacsv.write_csv(pa.table({"quizzes": [disguise(p, rng) for p in base[20:]]}), tmp_path / "train.csv")
    example = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "spark_dedup.py")
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    out = subprocess.run(
        [sys.executable, example, str(tmp_path / "test.csv"), str(tmp_path / "out")],
        capture_output=True, text=True, env=env, check=True,
    )
    assert "30 rows kept, 10 repeats" in out.stdout, out.stdout + out.stderr
    kept = spark.read.parquet(str(tmp_path / "out" / "kept"))
    assert sorted(int(r.id) for r in kept.collect()) == list(range(30))
    out = subprocess.run(
        [sys.executable, example, str(tmp_path / "test.csv"), str(tmp_path / "out2"), "--against", str(tmp_path / "train.csv")],
        capture_output=True, text=True, env=env, check=True,
    )
    # base[20:30] are in the training set in disguise.
    assert "30 rows kept, 10 equivalent" in out.stdout, out.stdout + out.stderr


CONNECT_SCRIPT = """
import sys
import batchdoku
from pyspark.sql import SparkSession
from batchdoku.spark import dedup_df, generate_df, solve_df, verify_df

spark = SparkSession.builder.remote("local[2]").getOrCreate()
assert type(spark).__module__ == "pyspark.sql.connect.session", type(spark)
puzzles = [l for l in open(sys.argv[1]).read().split()[:40]] + [None, "bad"]
df = spark.createDataFrame([(i, p) for i, p in enumerate(puzzles)], "i long, puzzle string")
got = sorted(solve_df(df, limit=2).collect(), key=lambda r: r.i)
want = batchdoku.solve(puzzles, limit=2)
assert [r.status for r in got] == want.status.tolist()
assert [r.solution for r in got] == want.solution_strings()
assert verify_df(solve_df(df)).where("ok").count() == 42  # None and "bad": malformed, as solve_df says
kept, dropped = dedup_df(df.union(df), order="i")
assert (kept.count(), dropped.count()) == (44, 40)  # rows without a class are all kept
rows = generate_df(spark, 12, seed=5, minimal=True).orderBy("index").collect()
assert [r.puzzle for r in rows] == batchdoku.generate(12, seed=5, minimal=True)
spark.stop()
print("connect ok")
"""


def test_spark_connect_sessions_work_too(tmp_path):
    """Under Spark Connect (a client session: no SparkContext, no JVM in
    the client, as on Databricks serverless), in a process of its own."""
    pytest.importorskip("grpc", reason="Spark Connect's client needs pyspark[connect] (grpcio)")
    script = tmp_path / "connect.py"
    script.write_text(CONNECT_SCRIPT)
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    out = subprocess.run([sys.executable, str(script), str(SAMPLE)], capture_output=True, text=True, env=env)
    assert out.returncode == 0 and "connect ok" in out.stdout, out.stdout + out.stderr[-3000:]


def test_local_workers_run_the_driver_python_when_none_is_named(tmp_path):
    """A virtual environment's interpreter run without activating it:
    Spark would start the python3 on PATH for its workers, which lacks this
    package; batchdoku.spark gives local workers the driver's interpreter."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python3").write_text("#!/bin/sh\necho 'not the driver python' >&2\nexit 1\n")
    (fake / "python3").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON")}
    env["PATH"] = f"{fake}{os.pathsep}{env.get('PATH', '')}"
    env["SPARK_HOME"] = os.path.dirname(pyspark.__file__)
    script = (
        "from pyspark.sql import SparkSession\n"
        "from batchdoku.spark import solve_df\n"
        "s = SparkSession.builder.master('local[1]').config('spark.ui.enabled', 'false')"
        ".config('spark.driver.bindAddress', '127.0.0.1').getOrCreate()\n"
        f"df = s.createDataFrame([({PUZZLE!r},)], 'puzzle string')\n"
        "print(solve_df(df).collect()[0].solution)\n"
        "s.stop()\n"
    )
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == SOLUTION
