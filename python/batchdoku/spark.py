"""batchdoku on Apache Spark.

DataFrame functions that run the native engine inside the executors on
whole Arrow record batches (``DataFrame.mapInArrow``: no Python per row),
and a generator whose partitions each make their own range of puzzle
indexes. pyspark is imported only here; the executors need this package
installed too (see docs/spark.md).

>>> from batchdoku.spark import solve_df
>>> df = spark.read.csv("sudoku.csv", header=True)          # quizzes,solutions
>>> solve_df(df, "quizzes").write.parquet("solved.parquet")
>>> kept, dropped = dedup_df(df, "quizzes")                  # one row per class

Each task uses ``spark.task.cpus`` engine threads (1 by default): Spark's
own parallelism is one task per core, and a pool per task the size of the
node would oversubscribe it. Raise ``spark.task.cpus`` for fewer, wider
tasks. ``spark.sql.execution.arrow.maxRecordsPerBatch`` sets the rows per
engine call (10,000 by default; 50,000-100,000 amortise better).

Imported from a virtual environment that is not activated, before any
session exists, this module sets ``PYSPARK_PYTHON`` to the running
interpreter when nothing names the workers' Python (see
``_workers_default_to_this_venv``): otherwise Spark would start the
``python3`` on ``PATH``, which lacks this package.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Optional

import numpy as np

import batchdoku

__all__ = ["solve_df", "verify_df", "rate_df", "grade_df", "canon_df", "dedup_df", "generate_df", "task_threads"]


def task_threads() -> int:
    """Engine threads for the current Spark task: its ``spark.task.cpus``
    (1 outside a task)."""
    try:
        from pyspark import TaskContext

        ctx = TaskContext.get()
        if ctx is not None:
            return max(1, int(ctx.cpus()))
    except Exception:  # pragma: no cover - older pyspark without cpus()
        pass
    return 1


def _name_key(spark: Any) -> Callable[[str], str]:
    """How the session compares column names: as they are under
    ``spark.sql.caseSensitive=true``, else ignoring case (Spark's default,
    under which ``Solution`` and ``solution`` are the same column)."""
    try:
        sensitive = str(spark.conf.get("spark.sql.caseSensitive", "false")).lower() == "true"
    except Exception:  # pragma: no cover - a session without the setting
        sensitive = False
    return (lambda name: name) if sensitive else (lambda name: name.lower())


def _find_column(df: Any, role: str, name: str, key: Callable[[str], str]) -> int:
    """The position of column `name` in `df`, matched by `key` (the
    session's :func:`_name_key`); a ValueError naming the columns when
    there is none, or more than one."""
    if not isinstance(name, str):
        # F.col("x") or None: a Column does not tell its name to pyspark
        raise TypeError(f"{role}: a column name (str) was expected, not {type(name).__name__}; put an expression in a column first (df.withColumn)")
    found = [i for i, c in enumerate(df.columns) if key(c) == key(name)]
    if len(found) > 1 and name in df.columns:
        found = [i for i, c in enumerate(df.columns) if c == name]
    if not found:
        raise ValueError(f"{role}: no column {name!r}; the DataFrame has {', '.join(df.columns) or 'no columns'}")
    if len(found) > 1:
        raise ValueError(f"{role}: {name!r} names {len(found)} columns ({', '.join(df.columns[i] for i in found)}); rename all but one")
    return found[0]


def _check_columns(df: Any, inputs: dict, added: list, counts: tuple = ()) -> tuple:
    """Finds the input columns (`inputs`, role -> name) and refuses those
    missing, and those neither strings nor arrays of digits (81 integers,
    or nine arrays of nine), naming them (on the driver, before any task
    runs); the roles in `counts` are numbers or strings instead. Returns
    their positions (role -> index) and the names the DataFrame's columns
    keep: those the added ones would clash with (compared as the session
    compares names) become `input_NAME`, as the command line's
    --keep-columns does (the Kaggle CSV's own `solutions` column)."""
    from pyspark.sql.types import ArrayType, BinaryType, IntegralType, NumericType, StringType

    def digits(t: Any) -> bool:
        # array<int> of 81 cells, or array<array<int>> of nine rows of nine
        if isinstance(t, ArrayType) and isinstance(t.elementType, ArrayType):
            t = t.elementType
        return isinstance(t, ArrayType) and isinstance(t.elementType, IntegralType)

    key = _name_key(df.sparkSession)
    fields = df.schema.fields
    positions = {}
    for role, name in inputs.items():
        i = positions[role] = _find_column(df, role, name, key)
        t = fields[i].dataType
        if role in counts:
            if not isinstance(t, (NumericType, StringType)):
                raise TypeError(f"{role}: column {fields[i].name!r} is {t.simpleString()}, not a column of counts (integers)")
            continue
        if not (isinstance(t, (StringType, BinaryType)) or digits(t)):
            hint = ""
            if isinstance(t, NumericType):
                # 81 digits do not fit a long, and a double keeps 17 of them
                hint = (
                    "; puzzles read as numbers have lost digits (a CSV read with inferSchema=True does this):"
                    " read the column as a string, e.g. without inferSchema or with schema=..."
                )
            raise TypeError(f"{role}: column {fields[i].name!r} is {t.simpleString()}, not a string column (or an array of digits){hint}")
    kept = list(df.columns)
    taken = {key(c) for c in kept}
    for name in added:
        for i, c in enumerate(kept):
            if key(c) == key(name):
                new = f"input_{c}"
                if key(new) in taken:
                    raise ValueError(f"the DataFrame has both {c!r} and {new!r}; rename one (a column {name!r} is added)")
                kept[i] = new
    return positions, kept


def _workers_default_to_this_venv() -> None:
    """Run from a virtual environment that is not activated, the driver is
    this interpreter but Spark starts its workers with the ``python3`` on
    ``PATH``, which lacks this package (and pyarrow): a session started in
    such a script fails in its first Python task. Before any session
    exists, ``PYSPARK_PYTHON`` is set to this interpreter in that case only
    (never when it is already set, nor under spark-submit, which names its
    own)."""
    import os
    import shutil
    import sys

    if "PYSPARK_PYTHON" in os.environ or "PYSPARK_GATEWAY_PORT" in os.environ or not sys.executable:
        return
    if sys.prefix == sys.base_prefix:
        return
    on_path = shutil.which("python3")
    if on_path is not None and os.path.dirname(os.path.abspath(on_path)) == os.path.dirname(os.path.abspath(sys.executable)):
        return
    try:
        from pyspark import SparkContext

        if SparkContext._active_spark_context is not None:
            return
    except Exception:  # pragma: no cover - pyspark without the attribute
        return
    os.environ["PYSPARK_PYTHON"] = sys.executable


_workers_default_to_this_venv()


def _local_workers_run_this_python(spark: Any) -> None:
    """In local mode with no Python named for the workers (``PYSPARK_PYTHON``
    or ``spark.pyspark.python``), Spark starts ``python3`` from ``PATH``
    for them, which is not this interpreter when it runs from a virtual
    environment that is not activated: the workers then cannot import this
    package (or pyarrow). Local workers run on this machine, so they are
    given the driver's own interpreter. A cluster's choice is left alone."""
    import os
    import sys

    sc = _spark_context(spark)
    if sc is None:  # Spark Connect: the server starts its own workers
        return
    named = "PYSPARK_PYTHON" in os.environ or sc.getConf().get("spark.pyspark.python")
    if sc.master.startswith("local") and not named and sc.pythonExec == "python3" and sys.executable:
        sc.pythonExec = sys.executable


def _schema(ddl: str) -> Any:
    """The StructType of "name type, ..." (the few types these functions
    add), built here: pyspark's own DDL parser calls into a JVM, which a
    Spark Connect client does not have."""
    from pyspark.sql.types import ArrayType, BooleanType, DoubleType, IntegerType, LongType, StringType, StructField, StructType

    types = {"string": StringType(), "int": IntegerType(), "long": LongType(), "boolean": BooleanType(), "double": DoubleType()}
    # grade_df's solving paths.
    types["path"] = ArrayType(
        StructType(
            [
                StructField("technique", StringType()),
                StructField("rating", DoubleType()),
                StructField("place", StringType()),
                StructField("eliminate", ArrayType(StringType())),
                StructField("cells", ArrayType(StringType())),
                StructField("chains", ArrayType(ArrayType(StringType()))),
            ]
        )
    )
    return StructType([StructField(name, types[kind], True) for name, kind in (f.split() for f in ddl.split(","))])


def _spark_context(spark: Any) -> Any:
    """The session's SparkContext, or None under Spark Connect (a client
    session has none)."""
    try:
        return spark.sparkContext
    except Exception:
        return None


def _default_parallelism(spark: Any) -> int:
    """The SparkContext's default parallelism; under Spark Connect, the
    session's spark.default.parallelism, else its shuffle partitions."""
    sc = _spark_context(spark)
    if sc is not None:
        return int(sc.defaultParallelism)
    for key in ("spark.default.parallelism", "spark.sql.shuffle.partitions"):
        try:
            value = spark.conf.get(key, None)
        except Exception:
            value = None
        if value:
            return int(value)
    return 200


def _add_columns(df: Any, inputs: dict, ddl: str, compute: Callable[[dict, int], list], counts: tuple = ()) -> Any:
    """`df` with the columns of `ddl` ("name type, ...") added: each Arrow
    batch's input columns (`inputs`, role -> name), as a dict role ->
    array, go to `compute(arrays, threads)`, which gives the new columns'
    arrays. The input columns are checked first (`counts`: roles that are
    numbers, see :func:`_check_columns`)."""
    from pyspark.sql.types import StructField, StructType

    added = _schema(ddl)
    names = [f.name for f in added.fields]
    positions, kept = _check_columns(df, inputs, names, counts)
    # mapInArrow looks its input columns up by name, and reads a name with
    # a dot in it ("score.v2") as a field of a struct: the columns cross it
    # under positional names and get their own back after (the inputs are
    # found by position too, so that two columns of one name do no harm).
    positional = [f"_batchdoku_{i}" for i in range(len(kept))]
    fields = [StructField(p, f.dataType, f.nullable, f.metadata) for p, f in zip(positional, df.schema.fields)]
    schema = StructType(fields + list(added.fields))

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        threads = task_threads()
        for b in batches:
            arrays = {role: b.column(i) for role, i in positions.items()}
            cols = list(b.columns) + compute(arrays, threads)
            yield pa.RecordBatch.from_arrays(cols, names=positional + names)

    _local_workers_run_this_python(df.sparkSession)
    return df.toDF(*positional).mapInArrow(run, schema).toDF(*kept, *names)


def _strings(words: np.ndarray, codes: np.ndarray) -> Any:
    """Words by code as an Arrow string array."""
    import pyarrow as pa

    return pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32)), pa.array(words.tolist(), pa.string())).dictionary_decode()


def solve_df(df: Any, column: str = "puzzle", *, limit: int = 1, solver: str = "fast") -> Any:
    """The DataFrame with ``status`` (string), ``solutions`` (int),
    ``solution`` (string, null where there is none) and ``guesses`` (long)
    added, as :func:`batchdoku.solve` finds them for the puzzles in
    ``column`` (strings, or arrays of 81 digits or of nine rows of nine).
    A null or malformed puzzle is ``malformed`` in its row.
    """
    batchdoku._solver(solver)
    limit = batchdoku._integer("limit", limit, 1, 2**32 - 1, "a count from 1 to 2**32 - 1")

    def compute(a: dict, threads: int) -> list:
        import pyarrow as pa

        r = batchdoku.solve(a["column"], limit=limit, solver=solver, threads=threads)
        return [
            _strings(batchdoku._STATUS_WORDS, r._codes),
            pa.array(r.count.astype(np.int32)),
            batchdoku._solution_array(r.solutions),
            pa.array(r.guesses.astype(np.int64)),
        ]

    ddl = "status string, solutions int, solution string, guesses long"
    return _add_columns(df, {"column": column}, ddl, compute)


def verify_df(
    df: Any,
    puzzle: str = "puzzle",
    answer: str = "solution",
    *,
    status: Any = None,
    count: Any = None,
    unique: bool = False,
) -> Any:
    """The DataFrame with ``ok`` (bool) and ``reason`` (string, null when
    the answer is right) added: each answer in ``answer`` (a solution, or a
    status word such as ``unsolvable``) checked against its puzzle, as
    :func:`batchdoku.verify` does.

    ``status`` and ``count`` name the columns that claim each row's status
    and solution count beside ``answer`` (a string column of status words;
    a column of integers, or their text). By default (None), as ``batchdoku
    verify`` reads a table with ``status`` and ``solution`` columns: when
    ``answer`` is the ``solution`` column and a ``status`` string column is
    there (what :func:`solve_df` adds), the claim is that status, the
    ``solutions`` column's count (if there) and the solution, null where
    there is none: a row that says ``unsolvable``, ``invalid`` or
    ``malformed`` is right when its puzzle is that, and a false status or
    count is wrong. Names are compared as the session compares them (any
    case by default). Name other columns to read them with any ``answer``;
    ``status=False`` reads the answers alone (then a null answer is wrong:
    missing), ``count=False`` no count.

    >>> verify_df(solve_df(df))     # every row ok, unsolvable and malformed ones too
    """
    from pyspark.sql.types import NumericType, StringType

    key = _name_key(df.sparkSession)
    fields = df.schema.fields

    def chosen(role: str, value: Any, default: str, fits: Callable[[Any], bool]) -> Optional[str]:
        # The column a role reads: named, found by default, or none (False).
        if value is False:
            return None
        if value is None:
            if not any(key(c) == key(default) for c in df.columns):
                return None
            i = _find_column(df, role, default, key)
            return fields[i].name if fits(fields[i].dataType) else None
        if not isinstance(value, str) or isinstance(value, bool):
            raise TypeError(f"{role}: a column name (str), None (found by name) or False (none) was expected, not {type(value).__name__}")
        return value

    is_text = lambda t: isinstance(t, StringType)  # noqa: E731
    by_default = isinstance(answer, str) and key(answer) == key("solution")
    status_column = chosen("status", status if status is not None or by_default else False, "status", is_text)
    inputs = {"puzzle": puzzle, "answer": answer}
    if status_column is not None:
        i = _find_column(df, "status", status_column, key)
        if not is_text(fields[i].dataType):
            raise TypeError(f"status: column {fields[i].name!r} is {fields[i].dataType.simpleString()}, not a string column of status words")
        inputs["status"] = status_column
        count_column = chosen("count", count, "solutions", lambda t: isinstance(t, (NumericType, StringType)))
        if count_column is not None:
            inputs["count"] = count_column

    def compute(a: dict, threads: int) -> list:
        import pyarrow as pa

        v = batchdoku.verify(a["puzzle"], a["answer"], status=a.get("status"), count=a.get("count"), unique=unique, threads=threads)
        return [pa.array(v.ok, pa.bool_()), pa.array(v.reason, pa.string())]

    return _add_columns(df, inputs, "ok boolean, reason string", compute, counts=("count",))


def rate_df(df: Any, column: str = "puzzle") -> Any:
    """The DataFrame with ``solutions`` (int), ``guesses`` (long),
    ``inference`` and ``difficulty`` (strings) added, the values
    ``batchdoku rate`` gives."""

    def compute(a: dict, threads: int) -> list:
        import pyarrow as pa

        r = batchdoku.rate(a["column"], threads=threads)
        return [
            pa.array(r.solutions.astype(np.int32)),
            pa.array(r.guesses.astype(np.int64)),
            pa.array(r.inference.tolist(), pa.string()),
            pa.array(r.difficulty.tolist(), pa.string()),
        ]

    ddl = "solutions int, guesses long, inference string, difficulty string"
    return _add_columns(df, {"column": column}, ddl, compute)


def grade_df(df: Any, column: str = "puzzle", steps: bool = False) -> Any:
    """The DataFrame with Sudoku Explainer's ratings added, as
    :func:`batchdoku.grade` gives them: ``status`` (string), ``er``, ``ep``,
    ``ed`` (doubles, null where there is none), ``hardest`` (string, null
    where none) and with ``steps`` the solving path (an array of structs:
    technique, rating, place, eliminate, cells, chains)."""
    if not isinstance(steps, bool):
        raise TypeError(f"steps: True or False was expected, not {type(steps).__name__} {steps!r}")

    def compute(a: dict, threads: int) -> list:
        import pyarrow as pa

        r = batchdoku.grade(a["column"], steps=steps, threads=threads)
        cols = [pa.array(r.status.tolist(), pa.string())]
        for x in (r.er, r.ep, r.ed):
            cols.append(pa.array(x, pa.float64(), mask=np.isnan(x)))
        cols.append(pa.array(r.hardest.tolist(), pa.string(), mask=r.hardest == ""))
        if steps:
            cols.append(r.steps)
        return cols

    ddl = "status string, er double, ep double, ed double, hardest string"
    if steps:
        ddl += ", steps path"
    return _add_columns(df, {"column": column}, ddl, compute)


def canon_df(df: Any, column: str = "puzzle") -> Any:
    """The DataFrame with ``canonical`` (string) and ``automorphisms``
    (long) added: each puzzle's canonical form and its automorphism count,
    as :func:`batchdoku.canon` gives them; both null for an invalid,
    malformed or null puzzle. Equivalent puzzles (the same puzzle in
    disguise) get the same ``canonical``: use it as a key to group, join or
    deduplicate (see :func:`dedup_df`)."""

    def compute(a: dict, threads: int) -> list:
        import pyarrow as pa

        r = batchdoku.canon(a["column"], threads=threads)
        ok = r.status == "ok"
        return [batchdoku._form_array(r), pa.array(r.automorphisms.astype(np.int64), mask=~ok)]

    return _add_columns(df, {"column": column}, "canonical string, automorphisms long", compute)


def dedup_df(df: Any, column: str = "puzzle", *, order: Optional[str] = None) -> Any:
    """Splits `df` into the first row of each class of equivalent puzzles
    and the rest: returns ``(kept, dropped)``, both with ``canonical`` and
    ``automorphisms`` added (:func:`canon_df`); with ``order``, ``dropped``
    also has ``duplicate_of``, the ``order`` value of the kept row it
    repeats (without it, join the two on ``canonical``). Each of the two
    recomputes the forms when used: ``cache()`` the input, or write one
    and read it back, when both are needed.

    "First" is by the ``order`` column (e.g. an id or a line number), and
    by default (or among rows with equal ``order`` values) in the order
    ``batchdoku dedup`` reads the same files: rows read from files by
    their file's path, part files and Hive-style subfolders in name order
    (``part-00000`` before ``part-00001``), then by their place in the
    file; other rows (made in memory, or coming out of a shuffle, such as
    a ``repartition`` or a join, before this call) by the DataFrame's
    partitions and rows, a ``monotonically_increasing_id`` taken before
    this call's own shuffle. Spark's own
    row order for a folder of files is not the files' names but their
    sizes (it packs the largest into partitions first), which would make
    "first" depend on how big the files are; ``input_file_name()`` and
    ``input_file_block_start()`` give the files' order instead. Where the
    order matters across a shuffle, give it as ``order``.
    Rows without a class (invalid, malformed, null puzzles) are all kept.
    The canonical form is the shuffle key: the work spreads over the
    cluster, and only the classes that repeat move twice. A streaming
    DataFrame is refused (no windows on streams); there,
    ``canon_df(stream).dropDuplicates(["canonical"])`` keeps the first
    row of each class to arrive.
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if df.isStreaming:
        raise ValueError(
            "dedup_df needs a static DataFrame: Spark ranks rows in a window only on those."
            " On a stream, canon_df(stream).dropDuplicates(['canonical']) keeps the first row of each class"
            " to arrive (a watermark, with dropDuplicatesWithinWatermark, bounds the state it keeps)"
        )
    if order is not None:
        key = _name_key(df.sparkSession)
        _find_column(df, "order", order, key)
        if any(key(c) == key("duplicate_of") for c in df.columns):
            # kept under its own name with input_ before it, as canon_df does
            _, kept_names = _check_columns(df, {}, ["duplicate_of"])
            df = df.toDF(*kept_names)
            if key(order) == key("duplicate_of"):
                order = "input_" + order
    arrival, rank = "_batchdoku_arrival", "_batchdoku_rank"
    path, block = "_batchdoku_file", "_batchdoku_block"
    # The files' order as the command line reads a folder: by name, a
    # subfolder's files where its name falls (so "/" is made to sort before
    # any character a name holds); then a file's splits by their offset,
    # and the rows of a split as read. Rows not read from a file here have
    # "" and -1, and keep the partitions' order.
    df = (
        df.withColumn(path, F.translate(F.input_file_name(), "/", "\u0001"))
        .withColumn(block, F.input_file_block_start())
        .withColumn(arrival, F.monotonically_increasing_id())
    )
    forms = canon_df(df, column)
    by_input = [F.col(path), F.col(block), F.col(arrival)]
    by_order = by_input if order is None else [F.col("`" + order.replace("`", "``") + "`")] + by_input
    by_class = Window.partitionBy("canonical").orderBy(*[c.asc() for c in by_order])
    has_class = F.col("canonical").isNotNull()
    ranked = forms.withColumn(rank, F.when(has_class, F.row_number().over(by_class)))
    if order is not None:
        ranked = ranked.withColumn("duplicate_of", F.when(has_class, F.first(by_order[0]).over(by_class)))
    # Generated ids mean nothing outside this call: without ``order`` the
    # canonical form is the key that ties a dropped row to the kept one.
    added_here = [rank] if order is None else [rank, "duplicate_of"]
    kept = ranked.where(F.col(rank).isNull() | (F.col(rank) == 1)).drop(path, block, arrival, *added_here)
    dropped = ranked.where(F.col(rank) > 1).drop(path, block, arrival, rank)
    return kept, dropped


def generate_df(
    spark: Any,
    n: int,
    *,
    seed: int,
    partitions: Optional[int] = None,
    minimal: bool = False,
    min_clues: Optional[int] = None,
    symmetry: str = "none",
    difficulty: Optional[str] = None,
    er: Optional[str] = None,
    with_solution: bool = False,
) -> Any:
    """A DataFrame of ``index`` (long, from 0), ``puzzle`` (string) and,
    with ``with_solution``, ``solution``: puzzle ``i`` is line ``i + 1`` of
    ``batchdoku generate -n N --seed SEED`` with the same options, however
    many ``partitions`` (None or 0: the session's default parallelism) make
    it. Each partition makes its own range of indexes.

    With ``difficulty``, puzzle ``i`` is the ``i``-th candidate of that
    class: the candidates are first rated in rounds of Spark jobs, each
    task rating its own range of them (run here, when this is called),
    until ``n`` are found; the DataFrame then makes just those. Asking for
    more than the candidates allowed hold (2000 per puzzle, as on the
    command line) raises ValueError, as :func:`batchdoku.generate` does.
    ``er`` (a Sudoku Explainer rating range, ``"4.5-6.2"``) works the same
    way, as ``generate --er``.
    """
    # The index column is a long: indexes up to 2**63 - 1.
    n = batchdoku._integer("n", n, 0, 2**63, "an integer from 0 to 2**63 (the index column is a long)")
    seed = batchdoku._integer("seed", seed, 0, 2**64 - 1, "an integer from 0 to 2**64 - 1")
    # By default no more partitions than puzzles: an empty range is a task for nothing.
    if partitions is None or (isinstance(partitions, (int, np.integer)) and not isinstance(partitions, bool) and partitions == 0):
        parts = min(_default_parallelism(spark), max(n, 1))
    else:
        parts = batchdoku._integer("partitions", partitions, 1, 2**31 - 1, "a count from 1 to 2**31 - 1 (or None)")
    # Options are checked once here, not in every task.
    batchdoku.generate(0, seed=seed, minimal=minimal, min_clues=min_clues, symmetry=symmetry, difficulty=difficulty, er=er)
    # The extension's name of what is kept: a class word or "er:MIN-MAX".
    difficulty = batchdoku._keep(difficulty, er)
    ddl = "index long, puzzle string" + (", solution string" if with_solution else "")
    _local_workers_run_this_python(spark)
    options = (bool(minimal), int(min_clues or 0), symmetry)
    # With a difficulty, the candidates kept (an index each), found first.
    kept = None if difficulty is None else _candidates_of_class(spark, n, seed, parts, options, difficulty)

    def run(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        from batchdoku import _batchdoku

        threads = task_threads()
        for b in batches:
            for part in b.column(0).to_pylist():
                start, end = part * n // parts, (part + 1) * n // parts
                if kept is None:
                    g = batchdoku.generate(
                        end - start,
                        seed=seed,
                        start=start,
                        minimal=minimal,
                        min_clues=min_clues,
                        symmetry=symmetry,
                        with_solution=True,
                        threads=threads,
                    )
                    puzzles, solutions = g.puzzles, g.solutions
                else:
                    puzzles, solutions = _batchdoku.generate_at(seed, kept[start:end].tolist(), *options, threads)
                cols = [pa.array(np.arange(start, end, dtype=np.int64)), pa.array(puzzles, pa.string())]
                if with_solution:
                    cols.append(pa.array(solutions, pa.string()))
                yield pa.RecordBatch.from_arrays(cols, names=["index", "puzzle"] + (["solution"] if with_solution else []))

    ids = spark.range(0, parts, 1, numPartitions=parts).withColumnRenamed("id", "part")
    return ids.mapInArrow(run, ddl)


def _candidates_of_class(spark: Any, n: int, seed: int, parts: int, options: tuple, difficulty: str) -> np.ndarray:
    """The indexes of the first `n` candidates of the run seeded with
    `seed` whose puzzles rate as `difficulty`, in order: the candidates are
    rated by Spark jobs, each of `parts` tasks taking its own range of a
    round, the rounds sized by the rate found so far, until `n` are found
    or the command line's limit of candidates (2000 per puzzle) is
    reached. The command line and :func:`batchdoku.generate` scan the same
    candidates one after the other, so the ones kept are the same."""
    from batchdoku import _batchdoku

    most = min(n * _batchdoku.TRIES_PER_PUZZLE, 2**64 - 1)  # candidate indexes are u64s, as the CLI saturates
    found: list = []
    have = scanned = 0  # candidates of the class found, candidates rated
    while have < n and scanned < most:
        if have:
            # What the rate so far says is left, and a quarter more.
            size = -(-(n - have) * scanned * 5 // (have * 4))
        else:
            size = max(2 * scanned, n, parts * 64)
        size = min(max(size, parts * 16), most - scanned)
        tasks = min(parts, size)
        bounds = [scanned + t * size // tasks for t in range(tasks + 1)]

        def scan(batches: Iterator[Any], bounds: list = bounds) -> Iterator[Any]:
            import pyarrow as pa

            from batchdoku import _batchdoku

            threads = task_threads()
            for b in batches:
                for t in b.column(0).to_pylist():
                    hits = _batchdoku.generate_matches(seed, bounds[t], bounds[t + 1], *options, difficulty, threads)
                    # One row per task: the indexes packed, few rows to collect.
                    yield pa.RecordBatch.from_arrays(
                        [pa.array([t], pa.int64()), pa.array([np.asarray(hits, dtype=np.int64).tobytes()], pa.binary())],
                        names=["task", "hits"],
                    )

        rows = spark.range(0, tasks, 1, numPartitions=tasks).mapInArrow(scan, "task long, hits binary").collect()
        for row in sorted(rows, key=lambda r: r["task"]):
            found.append(np.frombuffer(row["hits"], dtype=np.int64))
            have += len(found[-1])
        scanned += size
    kept = np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
    if len(kept) < n:
        raise ValueError(
            f"{difficulty.replace('er:', 'er ') if difficulty.startswith('er:') else 'difficulty ' + difficulty}: found only {len(kept)} of {n} puzzles in {scanned} candidates; relax the other options or ask for fewer"
        )
    return kept[:n]
