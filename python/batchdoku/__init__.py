"""batchdoku: the batchdoku Sudoku engine for Python.

Batch calls over whole datasets, with the GIL released and the work spread
over a pool of ``threads`` (0: all cores, or ``BATCHDOKU_THREADS``):

>>> import batchdoku, numpy as np
>>> p = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
>>> r = batchdoku.solve([p, "not a puzzle"])
>>> r.status.tolist()
['solved', 'malformed']
>>> r.solution_strings()[0][:9]
'534678912'
>>> batchdoku.verify([p], r.solutions[:1]).ok.tolist()
[True]

Puzzles may be a list or tuple of ``str``/``bytes`` (each read like a line
of the command line's input: 81 cells, ``.`` or ``0`` for blanks, or a
729-character pencilmark puzzle, nine characters a cell with digit ``d``
where ``d`` is still a candidate; text after a separator ignored; ``None``
is a missing puzzle), a numpy integer
array of shape (N, 81) or (N, 9, 9) with 0 for blanks, a numpy ``S``/``U``
string array of shape (N,) (a puzzle a string) or (N, 81) or (N, 9, 9) (a
cell a string, as ``np.array([list(p) for p in puzzles])`` makes: each row
is joined), a pyarrow string Array or ChunkedArray, or a pandas Series of
strings; a whole table (a pandas DataFrame, a pyarrow Table) is refused:
pass its column, ``df["puzzle"]``. A record that is not a puzzle (a
``str`` with a lone surrogate included) gets the status ``malformed`` in
its row; only a call that cannot be made (a wrong shape, type or option)
raises ``TypeError`` (a wrong type) or ``ValueError`` (a wrong value).
Ctrl-C during a long call raises ``KeyboardInterrupt`` within a second.

``threads`` is the most threads a call runs on (0: ``BATCHDOKU_THREADS``,
else one per core). A call starts no more than it has work for (a thread
per 1,024 records, or per puzzle generated) and never more than
max(4 x cores, 64); the pools of the last two sizes used are kept for the
next calls, and older ones end their threads.

Inputs must not be changed by other threads while a call reads them.
After ``os.fork()`` the child makes its own threads on its first call;
prefer the ``spawn`` start method for multiprocessing all the same.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _batchdoku

__version__ = _batchdoku.__version__

__all__ = [
    "solve",
    "verify",
    "verify_files",
    "rate",
    "grade",
    "canon",
    "generate",
    "read",
    "SolveResult",
    "VerifyResult",
    "VerifyReport",
    "RateResult",
    "GradeResult",
    "ReadResult",
    "Generated",
]

_STATUS_WORDS = np.array(_batchdoku.status_words())
_INFERENCE_WORDS, _DIFFICULTY_WORDS = (np.array(w) for w in _batchdoku.rate_words())

_SOLVERS = ("fast", "mrv", "backtrack")


def _is_from(obj: Any, module: str) -> bool:
    return type(obj).__module__.split(".")[0] == module


def _integer(name: str, value: Any, lo: int, hi: float, range_text: str) -> int:
    """`value` as an int from `lo` to `hi`: a TypeError for anything but an
    integer (a bool, a float or a string of digits included), a ValueError
    outside the range (`range_text` says it)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name}: {range_text} was expected, not {type(value).__name__} {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"{name}: {range_text} was expected, not {value!r}")
    return int(value)


def _threads(threads: Any) -> int:
    """A ``threads`` argument: 0 (the default count) or more. The engine
    never starts more than max(4 x cores, 64), nor more than the call has
    work for, so a larger number asks for that many."""
    return min(_integer("threads", threads, 0, float("inf"), "a count of 0 or more"), 2**20)


def _word(name: str, value: Any) -> str:
    """An option named by a word: a str (a TypeError otherwise); one that
    UTF-8 cannot hold (a lone surrogate) is passed escaped, so the engine's
    ValueError shows it beside the words it takes."""
    if not isinstance(value, str):
        raise TypeError(f"{name}: a str was expected, not {type(value).__name__} {value!r}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "backslashreplace").decode("ascii")
    return value


def _table_error(puzzles: Any, what: str) -> TypeError:
    """The error for a whole table given where one column was expected."""
    kind = f"{type(puzzles).__module__.split('.')[0]} {type(puzzles).__name__}"
    try:
        names = [str(c) for c in (puzzles.column_names if hasattr(puzzles, "column_names") else puzzles.columns)]
    except Exception:
        names = []
    example = names[0] if names else what.rstrip("s")
    return TypeError(
        f"{what}: a table ({kind}{', columns ' + ', '.join(names) if names else ''}) was given;"
        f" pass the column that holds them, e.g. df[{example!r}]"
    )


def _is_table(obj: Any) -> bool:
    if _is_from(obj, "pandas"):
        import pandas as pd

        return isinstance(obj, pd.DataFrame)
    if _is_from(obj, "pyarrow"):
        import pyarrow as pa

        return isinstance(obj, (pa.Table, pa.RecordBatch))
    return False


def _is_arrow_list(t: Any) -> bool:
    import pyarrow as pa

    return pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)


def _arrow_list_text(arr: Any, what: str) -> tuple:
    """An Arrow array of integer lists, 81 cells or nine rows of nine per
    puzzle (as ML datasets and Spark's ``array<int>`` columns hold them),
    as the text of its cells, the same the command line's Parquet reader
    makes of them: a digit 0-9 as its character, any other value or a null
    cell as ``?`` (so the record is malformed, naming the cell), a row of
    nine of another length as nine ``?``, a list of the wrong length as
    that many characters (at most 82, or ten rows), a null list as null.
    Returns the ``offsets`` spec; built with numpy, no Python per row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    nested = _is_arrow_list(arr.type.value_type)
    leaf = arr.type.value_type.value_type if nested else arr.type.value_type
    if not pa.types.is_integer(leaf):
        raise TypeError(f"{what}: lists of integers were expected, not {arr.type}")
    want = pa.large_list(pa.large_list(pa.int64())) if nested else pa.large_list(pa.int64())
    # unsafe: a uint64 beyond int64 wraps to a negative number, a `?` all the same
    arr = arr.cast(want, safe=False)
    valid = arr.is_valid().to_numpy(zero_copy_only=False)
    starts = arr.offsets.to_numpy()  # into arr.values, which a slice does not cut

    def characters(values: Any) -> np.ndarray:
        v = pc.fill_null(values, -1).to_numpy()
        return np.where((v >= 0) & (v <= 9), v + ord("0"), ord("?")).astype(np.uint8)

    def gather(units: np.ndarray, cap: int) -> tuple:
        # The first `cap` units (cells, or rows of nine) of each valid list.
        lengths = np.diff(starts)
        count = np.where(valid, np.minimum(lengths, cap), 0)
        if np.array_equal(count, lengths):
            # nothing cut: Arrow's lists lie end to end, so one slice
            return count, units[starts[0] : starts[-1]]
        ends = np.cumsum(count)
        index = np.repeat(starts[:-1] - (ends - count), count) + np.arange(ends[-1] if len(ends) else 0)
        return count, units[index]

    if nested:
        rows = arr.values
        row_starts = rows.offsets.to_numpy()
        cells = characters(rows.values)
        whole = rows.is_valid().to_numpy(zero_copy_only=False) & (np.diff(row_starts) == 9)
        lines = np.full((len(rows), 9), ord("?"), np.uint8)
        lines[whole] = cells[row_starts[:-1][whole][:, None] + np.arange(9)]
        count, picked = gather(lines, 10)
        count, data = count * 9, picked.reshape(-1)
    else:
        count, data = gather(characters(arr.values), 82)
    offsets = np.zeros(len(arr) + 1, np.int64)
    np.cumsum(count, out=offsets[1:])
    return ("offsets", offsets, np.ascontiguousarray(data, np.uint8), None if valid.all() else np.ascontiguousarray(valid))


def _arrow_spec(arr: Any, what: str = "puzzles") -> tuple:
    """An Arrow array of strings as offsets, data and validity (or lists
    of digits as an integer array)."""
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.dictionary_decode()
        t = arr.type
    if _is_arrow_list(t):
        return _arrow_list_text(arr, what)
    if pa.types.is_struct(t):
        # A table exported as Arrow (a polars DataFrame, a DuckDB relation)
        names = ", ".join(t.field(i).name for i in range(t.num_fields))
        raise TypeError(f"{what}: a table (columns {names}) was given; pass the column that holds them")
    if not (
        pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
        or pa.types.is_string_view(t)
        or pa.types.is_binary_view(t)
        or pa.types.is_null(t)
    ):
        raise TypeError(f"{what}: an Arrow array of strings or of integer lists was expected, not {t}")
    binary = pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t)
    arr = arr.cast(pa.large_binary() if binary else pa.large_string())
    n = len(arr)
    _, offsets_buf, data_buf = arr.buffers()
    offsets = np.frombuffer(offsets_buf, dtype=np.int64)[arr.offset : arr.offset + n + 1] if n else np.zeros(1, np.int64)
    data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    valid = None
    if arr.null_count:
        valid = np.ascontiguousarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    return ("offsets", np.ascontiguousarray(offsets), data, valid)


def _spec(puzzles: Any, what: str = "puzzles") -> tuple:
    """Turns any accepted input into a form the engine reads in place."""
    if isinstance(puzzles, SolveResult):
        raise TypeError(f"{what}: a SolveResult holds answers, not puzzles")
    if isinstance(puzzles, np.ndarray):
        return _array_spec(puzzles, what)
    if _is_table(puzzles):
        raise _table_error(puzzles, what)
    if _is_from(puzzles, "pyarrow"):
        import pyarrow as pa

        if isinstance(puzzles, (pa.Array, pa.ChunkedArray)):
            return _arrow_spec(puzzles, what)
    if _is_from(puzzles, "pandas"):
        return _pandas_spec(puzzles, what)
    if hasattr(puzzles, "__arrow_c_stream__") or hasattr(puzzles, "__arrow_c_array__"):
        # The Arrow PyCapsule interface (polars, DuckDB, nanoarrow, arro3):
        # taken over without a copy.
        import pyarrow as pa

        if hasattr(puzzles, "__arrow_c_stream__"):
            return _arrow_spec(pa.chunked_array(puzzles), what)
        return _arrow_spec(pa.array(puzzles), what)
    if isinstance(puzzles, (str, bytes)):
        raise TypeError(f"{what}: a sequence of puzzles was expected; for one puzzle pass [puzzle]")
    if isinstance(puzzles, (list, tuple)):
        return _list_spec(puzzles, what)
    if _is_from(puzzles, "pyarrow"):
        raise TypeError(f"{what}: a pyarrow Array or ChunkedArray was expected, not {type(puzzles).__name__}")
    try:
        items = list(puzzles)
    except TypeError:
        raise TypeError(
            f"{what}: a list of str, a numpy array (N, 81) or (N, 9, 9), a pyarrow array "
            f"or a pandas Series was expected, not {type(puzzles).__name__}"
        ) from None
    return _list_spec(items, what)


def _pandas_spec(series: Any, what: str) -> tuple:
    """A pandas Series (or Index, Categorical) through Arrow; one holding a
    str that Arrow cannot (a lone surrogate) as a list, so that only that
    record is malformed."""
    import pyarrow as pa

    try:
        arr = pa.array(series, from_pandas=True)
    except UnicodeError:
        import pandas as pd

        return _list_spec([None if x is None or x is pd.NA or (isinstance(x, float) and x != x) else x for x in list(series)], what)
    return _arrow_spec(arr, what)


def _list_spec(items: Sequence[Any], what: str) -> tuple:
    for i, x in enumerate(items):
        # Checked only up front for the first few; the engine names the
        # rest if one is wrong.
        if i == 16:
            break
        if x is not None and not isinstance(x, (str, bytes)):
            raise TypeError(f"{what}[{i}]: str or bytes was expected, not {type(x).__name__}")
    return ("texts", items if isinstance(items, list) else list(items))


def _array_spec(a: np.ndarray, what: str) -> tuple:
    kind = a.dtype.kind
    if kind in "iu":
        if a.ndim == 3 and a.shape[1:] == (9, 9):
            a = a.reshape(a.shape[0], 81)
        if a.ndim != 2 or a.shape[1] != 81:
            raise ValueError(f"{what}: an integer array of shape (N, 81) or (N, 9, 9) was expected, not {a.shape}")
        a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))
        return ("ints", a.view(np.uint8).reshape(a.shape[0], 81 * a.dtype.itemsize), a.dtype.itemsize, kind == "i")
    if kind in "SUO" and a.ndim == 3 and a.shape[1:] == (9, 9):
        a = a.reshape(a.shape[0], 81)
    if kind in "SUO" and a.ndim == 2 and a.shape[1] == 1:
        a = a.reshape(-1)  # a column
    if kind in "SUO" and a.ndim == 2 and a.shape[1] == 81:
        return _cells_spec(a, what)
    if kind in "SUO" and a.ndim != 1:
        raise ValueError(
            f"{what}: a string array of shape (N,) (a puzzle a string), or (N, 81) or (N, 9, 9)"
            f" (a cell a string) was expected, not {a.shape}"
        )
    if kind in "SU":
        if kind == "U":
            # UCS-4 to UTF-8 bytes: numpy encodes whole arrays at once.
            try:
                a = np.char.encode(a, "utf-8")
            except UnicodeError:
                return _list_spec(a.tolist(), what)
        a = np.ascontiguousarray(a)
        width = max(a.dtype.itemsize, 1)
        if a.dtype.itemsize == 0:
            a = a.astype("S1")
        return ("fixed", a.view(np.uint8).reshape(a.shape[0], width))
    if kind == "O":
        return _list_spec(a.tolist(), what)
    raise TypeError(f"{what}: an integer array (0 for blanks) or a string array was expected, not dtype {a.dtype}")


def _cells_spec(a: np.ndarray, what: str) -> tuple:
    """An (N, 81) array of cells as text (one character each, as numpy
    makes of ``list(puzzle)``): each row joined into its puzzle's line."""
    n = a.shape[0]
    if a.dtype.kind == "S" and a.dtype.itemsize == 1:
        return ("fixed", np.ascontiguousarray(a).view(np.uint8).reshape(n, 81))
    if a.dtype.kind == "U" and a.dtype.itemsize == 4:
        codes = np.ascontiguousarray(a, a.dtype.newbyteorder("=")).view(np.uint32).reshape(n, 81)
        if (codes < 0x80).all():
            # ASCII: the bytes are the codes (an empty cell a NUL, which no
            # puzzle has: malformed, as a row one cell short would be)
            return ("fixed", codes.astype(np.uint8))
    rows = a.tolist()
    if a.dtype.kind == "O" and n and all(isinstance(c, (int, np.integer)) and not isinstance(c, bool) for c in rows[0]):
        # an object array of integer cells
        try:
            return _array_spec(np.array(rows, dtype=np.int64), what)
        except (TypeError, ValueError, OverflowError):
            raise TypeError(f"{what}: an (N, 81) object array of integer cells holds something else") from None
    try:
        return _list_spec([(b"" if isinstance(r[0], bytes) else "").join(r) for r in rows], what)
    except TypeError:
        raise TypeError(f"{what}: an (N, 81) array of cells as str (or bytes), or of integers, was expected") from None


def _solution_array(solutions: np.ndarray) -> Any:
    """(N, 81) uint8 solutions as an Arrow string array of 81 digits, null
    for 0 rows, built from buffers (no Python object per row)."""
    import pyarrow as pa

    n = len(solutions)
    has = solutions[:, 0] != 0
    data = solutions[has].reshape(-1)
    data += ord("0")  # a copy already: the digits' text
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum(has * 81, out=offsets[1:])
    validity = pa.py_buffer(np.packbits(has, bitorder="little")) if not has.all() else None
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data), validity, null_count=int(n - has.sum()))


class SolveResult:
    """What :func:`solve` found, one entry per input puzzle, in order.

    - ``status``: str array: ``solved`` (limit 1), ``unique`` or ``multiple``
      (limit 2 or more), ``unsolvable``, ``invalid`` or ``malformed``.
    - ``solutions``: uint8 array (N, 81), 0 rows where there is no solution.
    - ``count``: solutions found, up to the limit.
    - ``guesses``: the solver's guesses.
    """

    __slots__ = ("status", "solutions", "count", "guesses", "_codes")

    def __init__(self, codes: np.ndarray, solutions: np.ndarray, count: np.ndarray, guesses: np.ndarray):
        self._codes = codes
        self.status = _STATUS_WORDS[codes]
        self.solutions = solutions
        self.count = count
        self.guesses = guesses

    def __len__(self) -> int:
        return len(self._codes)

    def __repr__(self) -> str:
        words, counts = np.unique(self.status, return_counts=True)
        tally = ", ".join(f"{c} {w}" for w, c in zip(words, counts))
        return f"SolveResult({len(self)} puzzles: {tally or 'none'})"

    def solution_strings(self) -> List[Optional[str]]:
        """Each solution as 81 digits, or None where there is none.

        >>> batchdoku.solve(["1" * 81]).solution_strings()
        [None]
        """
        has = self.solutions[:, 0] != 0
        digits = (self.solutions + ord("0")).view("S81").reshape(-1)
        return [d.decode() if h else None for d, h in zip(digits.tolist(), has.tolist())]

    def to_arrow(self) -> Any:
        """A ``pyarrow.Table`` with columns status, solutions, solution,
        guesses (the command line's csv fields)."""
        import pyarrow as pa

        return pa.table(
            {
                "status": pa.array(self.status.tolist(), pa.string()),
                "solutions": pa.array(self.count.astype(np.int32)),
                "solution": _solution_array(self.solutions),
                "guesses": pa.array(self.guesses.astype(np.int64)),
            }
        )

    def to_pandas(self) -> Any:
        """A ``pandas.DataFrame`` with the columns of :meth:`to_arrow`."""
        import pandas as pd

        return pd.DataFrame(
            {
                "status": self.status.astype(object),
                "solutions": self.count.astype(np.int32),
                "solution": self.solution_strings(),
                "guesses": self.guesses.astype(np.int64),
            }
        )


class VerifyResult(NamedTuple):
    """What :func:`verify` found: ``ok`` (bool array) and, per record, None or
    the reason the answer is wrong (the command line's words)."""

    ok: np.ndarray
    reason: List[Optional[str]]


class GradeResult(NamedTuple):
    """What :func:`grade` found, one entry per puzzle, as ``batchdoku grade``
    writes it.

    - ``status``: str array: ``rated``, ``beyond`` (a step needs a technique
      not implemented: ``er`` is the hardest step reached, a lower bound),
      ``multiple``, ``unsolvable``, ``invalid``, ``malformed``.
    - ``er``, ``ep``, ``ed``: float arrays, Sudoku Explainer's ratings; NaN
      where there is none.
    - ``hardest``: str array, the technique of the ER step ("" where none).
    - ``steps``: with ``steps=True``, a pyarrow ListArray, per puzzle its
      path: structs of ``technique``, ``rating``, ``place`` (``r4c5=7`` or
      null), ``eliminate`` (``r1c2<>5`` strings), ``cells`` (the
      pattern's cells) and ``chains`` (for a chain, its branches, each a
      list of links from its assumption to its conclusion: ``r1c2=5`` or
      ``r1c3<>5``; empty for other techniques); else None.
    """

    status: np.ndarray
    er: np.ndarray
    ep: np.ndarray
    ed: np.ndarray
    hardest: np.ndarray
    steps: Any


class RateResult(NamedTuple):
    """What :func:`rate` found, as ``batchdoku rate`` writes it."""

    solutions: np.ndarray
    guesses: np.ndarray
    inference: np.ndarray
    difficulty: np.ndarray


class CanonResult(NamedTuple):
    """What :func:`canon` found, one entry per input puzzle, in order.

    - ``forms``: uint8 array (N, 81), each puzzle's canonical (minlex) form
      with 0 for blanks; 0 rows where ``status`` is not ``ok``.
    - ``automorphisms``: how many of the 3,359,232 cell arrangements (each
      with a relabelling) map the puzzle onto itself; 0 where not ``ok``.
    - ``status``: str array: ``ok``, ``invalid`` or ``malformed``.
    """

    forms: np.ndarray
    automorphisms: np.ndarray
    status: np.ndarray

    def form_strings(self) -> List[Optional[str]]:
        """Each form as 81 characters (``.`` for blanks, as ``batchdoku
        canon`` writes it), or None where there is none.

        >>> batchdoku.canon(["." * 80 + "7"]).form_strings()[0][:9]
        '.........'
        """
        ok = self.status == "ok"
        text = _form_text(self.forms).view("S81").reshape(-1)
        return [t.decode() if k else None for t, k in zip(text.tolist(), ok.tolist())]


def _form_text(forms: np.ndarray) -> np.ndarray:
    """(N, 81) cell values as the bytes of their line form: digits, and
    ``.`` for blanks."""
    return np.where(forms == 0, np.uint8(ord(".")), forms + np.uint8(ord("0"))).astype(np.uint8)


def _form_array(r: "CanonResult") -> Any:
    """The forms as an Arrow string array, null where there is none, built
    from buffers (no Python object per row)."""
    import pyarrow as pa

    n = len(r.forms)
    ok = r.status == "ok"
    data = _form_text(r.forms[ok]).reshape(-1)
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum(ok * 81, out=offsets[1:])
    validity = pa.py_buffer(np.packbits(ok, bitorder="little")) if not ok.all() else None
    return pa.StringArray.from_buffers(n, pa.py_buffer(offsets), pa.py_buffer(data), validity, null_count=int(n - ok.sum()))


class ReadResult(NamedTuple):
    """The records of a file: ``puzzles`` (N, 81) uint8 (0 rows for malformed
    records), each record's ``lines`` number (the row index for npy and
    Parquet), and ``malformed`` as (index, line, reason) tuples."""

    puzzles: np.ndarray
    lines: np.ndarray
    malformed: List[Tuple[int, int, str]]


class Generated(NamedTuple):
    """Puzzles made by :func:`generate`, and their solutions when asked."""

    puzzles: List[str]
    solutions: Optional[List[str]]


def _solver(solver: Any) -> None:
    if not isinstance(solver, str):
        raise TypeError(f"solver: a str was expected, not {type(solver).__name__} {solver!r}")
    if solver not in _SOLVERS:
        raise ValueError(f"solver: one of {', '.join(_SOLVERS)} was expected, not {solver!r}")


def solve(puzzles: Any, *, limit: int = 1, solver: str = "fast", threads: int = 0) -> SolveResult:
    """Solves every puzzle, counting solutions up to ``limit`` (2 proves
    uniqueness).

    ``solver`` is ``fast`` (the default), ``mrv`` or ``backtrack`` (the
    reference solvers). The solutions array is filled by the engine and
    handed over without a copy.

    >>> r = batchdoku.solve(np.zeros((2, 81), np.uint8), limit=2)
    >>> r.status.tolist(), r.count.tolist()
    (['multiple', 'multiple'], [2, 2])
    """
    limit = _integer("limit", limit, 1, 2**32 - 1, "a count from 1 to 2**32 - 1")
    _solver(solver)
    codes, solutions, count, guesses = _batchdoku.solve(_spec(puzzles), limit, solver, _threads(threads))
    return SolveResult(codes, solutions, count, guesses)


def verify(
    puzzles: Any,
    answers: Any,
    *,
    status: Any = None,
    count: Any = None,
    unique: bool = False,
    threads: int = 0,
) -> VerifyResult:
    """Checks each answer against its puzzle, as ``batchdoku verify`` does.

    ``answers`` may be a :class:`SolveResult` (statuses, counts and
    solutions all checked), or solutions in any form ``puzzles`` takes
    (str: 81 digits or a status word such as ``unsolvable``; an (N, 81)
    array), one per puzzle.

    ``status`` (status words, in any form ``puzzles`` takes) and ``count``
    (solution counts: integers, None for none) beside the solutions claim
    what ``solve`` wrote: each record's status, its count if given, and
    its solution (None, empty, or a 0 row where there is none). They are
    read as the command line reads a ``solve`` output's ``status``,
    ``solutions`` and ``solution`` columns: a record that says
    ``unsolvable``, ``invalid`` or ``malformed`` is right when its puzzle
    is that, a false status or count is wrong, and an empty status claims
    nothing (the solution is checked). A pandas DataFrame or pyarrow Table
    as ``answers`` (such as :meth:`SolveResult.to_pandas` makes) is read
    the same way when it has ``status`` and ``solution`` columns (and
    ``solutions`` as the count), any case; else its ``solution``,
    ``solutions`` or ``answer`` column is the answer.

    ``unique`` also demands exactly one solution.

    >>> p = ["1" * 81]
    >>> batchdoku.verify(p, ["invalid"]).ok.tolist()
    [True]
    >>> batchdoku.verify(p, [None], status=["invalid"]).ok.tolist()
    [True]
    """
    threads = _threads(threads)
    if _is_table(answers):
        answers, status, count = _answer_columns(answers, status, count)
    if isinstance(answers, SolveResult):
        if status is not None or count is not None:
            raise ValueError("status, count: a SolveResult carries its own statuses and counts")
        spec = ("result", answers._codes, answers.count.astype(np.uint32), np.ascontiguousarray(answers.solutions, np.uint8))
    else:
        spec = _spec(answers, "answers")
    if status is not None and isinstance(status, np.ndarray) and status.dtype.kind in "iufb":
        raise TypeError(f"status: status words were expected, not an array of {status.dtype}")
    status_spec = None if status is None else _spec(status, "status")
    count_spec = None if count is None or status is None else _count_spec(count)
    ok, reason = _batchdoku.verify(_spec(puzzles), spec, bool(unique), threads, status_spec, count_spec)
    return VerifyResult(ok, reason)


def _answer_columns(table: Any, status: Any, count: Any) -> tuple:
    """The answers, statuses and counts of a table of answers, found as the
    command line finds them in a Parquet file (names in any case): a
    ``solve`` output's ``status``, ``solutions`` and ``solution``, else a
    ``solution``, ``solutions`` or ``answer`` column."""
    names = [str(c) for c in (table.column_names if hasattr(table, "column_names") else table.columns)]
    found = {}
    for i, c in enumerate(names):
        found.setdefault(c.lower(), i)

    def column(name: str) -> Any:
        i = found[name]
        return table.column(i) if hasattr(table, "column_names") else table.iloc[:, i]

    if "status" in found and "solution" in found:
        return (
            column("solution"),
            column("status") if status is None else status,
            (column("solutions") if "solutions" in found else None) if count is None else count,
        )
    for name in ("solution", "solutions", "answer"):
        if name in found:
            return column(name), status, count
    raise _table_error(table, "answers")


def _count_spec(count: Any) -> tuple:
    """Solution counts as the text the engine reads a count from: an
    integer as its digits (a negative one, or one past 2**32 - 1, is then
    a wrong answer), a float holding an integer (what pandas makes of a
    column with a missing value) likewise, any other float as written (a
    wrong answer), a null, None or NaN as no count; a string as it is."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(count, (str, bytes)):
        raise TypeError("count: a sequence of counts was expected, one per answer")
    try:
        if isinstance(count, (pa.Array, pa.ChunkedArray)):
            arr = count
        elif isinstance(count, np.ndarray):
            if count.ndim != 1:
                raise ValueError(f"count: an array of shape (N,) was expected, not {count.shape}")
            arr = pa.array(count)
        elif _is_from(count, "pandas"):
            arr = pa.array(count, from_pandas=True)
        else:
            arr = pa.array(list(count), from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as e:
        raise TypeError(f"count: integers (None for none) were expected: {e}") from None
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.dictionary_decode()
        t = arr.type
    if pa.types.is_decimal(t):
        arr, t = arr.cast(pa.float64()), pa.float64()
    if pa.types.is_integer(t) or pa.types.is_null(t):
        text = arr.cast(pa.string())
    elif pa.types.is_floating(t):
        v = arr.cast(pa.float64()).to_numpy(zero_copy_only=False)
        whole = np.isfinite(v) & (np.floor(v) == v) & (np.abs(v) < 2.0**63)
        as_int = pa.array(np.where(whole, v, 0).astype(np.int64)).cast(pa.string())
        text = pc.if_else(pa.array(whole), as_int, arr.cast(pa.string()))
        text = pc.if_else(pa.array(np.isnan(v)), pa.scalar(None, pa.string()), text)
    elif pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        text = arr
    else:
        raise TypeError(f"count: integers (None for none) were expected, not {t}")
    return _arrow_spec(text, "count")


def rate(puzzles: Any, *, threads: int = 0) -> RateResult:
    """Rates every puzzle, with the values ``batchdoku rate`` writes:
    solutions (up to 2), the fast solver's guesses, the strongest
    inference needed (``singles``, ``locked-candidates``, ``search``) and
    the difficulty (``easy``, ``medium``, ``hard``, ``extreme``);
    ``invalid`` or ``malformed`` in both for such records.
    """
    sols, guesses, inf, dif = _batchdoku.rate(_spec(puzzles), _threads(threads))
    return RateResult(sols, guesses, _INFERENCE_WORDS[inf], _DIFFICULTY_WORDS[dif])


_GRADE_STATUS, _TECHNIQUES = (np.array(w) for w in _batchdoku.grade_words())
# Cell names r1c1..r9c9 by cell number.
_CELL_NAMES = np.array([f"r{c // 9 + 1}c{c % 9 + 1}" for c in range(81)])


def _ratings(tenths: np.ndarray) -> np.ndarray:
    out = tenths.astype(np.float64) / 10.0
    out[tenths == 0] = np.nan
    return out


def _steps_array(columns: tuple) -> Any:
    """The paths as a pyarrow ListArray of step structs, from the flat
    columns the extension returns."""
    import pyarrow as pa

    offsets, technique, rating, place, elim_offsets, elim, cell_offsets, cells, chains = columns
    chain_offsets, branch_offsets, nodes, node_on = chains

    def moves(codes: np.ndarray, sign: str) -> np.ndarray:
        codes = codes.astype(np.int64)
        names = _CELL_NAMES[codes // 10] if len(codes) else np.array([], dtype=str)
        return np.char.add(np.char.add(names, sign), (codes % 10).astype(str)) if len(codes) else names

    node_text = np.array([], dtype=str)
    if len(nodes):
        codes = nodes.astype(np.int64)
        signs = np.where(node_on, "=", "<>")
        node_text = np.char.add(np.char.add(_CELL_NAMES[codes // 10], signs), (codes % 10).astype(str))
    branches = pa.ListArray.from_arrays(pa.array(branch_offsets, pa.int32()), pa.array(node_text, pa.string()))
    placed = place >= 0
    place_text = np.full(len(place), None, dtype=object)
    if placed.any():
        place_text[placed] = moves(place[placed], "=")
    step = pa.StructArray.from_arrays(
        [
            pa.array(_TECHNIQUES[technique] if len(technique) else np.array([], dtype=str), pa.string()),
            pa.array(rating.astype(np.float64) / 10.0, pa.float64()),
            pa.array(place_text, pa.string()),
            pa.ListArray.from_arrays(pa.array(elim_offsets, pa.int32()), pa.array(moves(elim, "<>"), pa.string())),
            pa.ListArray.from_arrays(
                pa.array(cell_offsets, pa.int32()),
                pa.array(_CELL_NAMES[cells] if len(cells) else np.array([], dtype=str), pa.string()),
            ),
            pa.ListArray.from_arrays(pa.array(chain_offsets, pa.int32()), branches),
        ],
        names=["technique", "rating", "place", "eliminate", "cells", "chains"],
    )
    return pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), step)


def grade(puzzles: Any, *, steps: bool = False, threads: int = 0) -> GradeResult:
    """Rates every puzzle on Sudoku Explainer's scale (SE 1.2.1), as
    ``batchdoku grade`` does: ER (the hardest step of a person's solving
    path), EP (the hardest up to the first placement), ED (the first
    step's), the technique of the ER step, and with ``steps`` the whole
    path of each puzzle (see :class:`GradeResult`). Puzzles are taken in
    any form :func:`solve` takes; the work runs on the pool, the GIL
    released.

    >>> batchdoku.grade(["1" * 81]).status.tolist()
    ['invalid']
    """
    if not isinstance(steps, (bool, np.bool_)):
        raise TypeError(f"steps: True or False was expected, not {type(steps).__name__} {steps!r}")
    status, er, ep, ed, hardest, columns = _batchdoku.grade(_spec(puzzles), bool(steps), _threads(threads))
    names = np.append(_TECHNIQUES, "")
    hardest_names = names[np.where(hardest == 255, len(_TECHNIQUES), hardest)]
    return GradeResult(
        _GRADE_STATUS[status],
        _ratings(er),
        _ratings(ep),
        _ratings(ed),
        hardest_names,
        _steps_array(columns) if steps else None,
    )


_CANON_WORDS = np.array(["ok", "invalid", "malformed"])


def canon(puzzles: Any, *, threads: int = 0) -> CanonResult:
    """Each puzzle's canonical form, as ``batchdoku canon`` gives it: the
    smallest 81-cell string (blanks below every digit) among all the puzzles
    it becomes by relabelling digits, permuting rows within bands, bands,
    columns within stacks, stacks, and transposing. Equivalent puzzles (the
    same puzzle in disguise) share one form, whatever their number of
    solutions; solved grids have one too.

    >>> a = batchdoku.canon(["1" + "." * 80, "." * 80 + "9"]).form_strings()
    >>> a[0] == a[1]
    True
    """
    forms, automorphisms, codes = _batchdoku.canon(_spec(puzzles), _threads(threads))
    return CanonResult(forms, automorphisms, _CANON_WORDS[codes])


def _keep(difficulty: Any, er: Any) -> Optional[str]:
    """What generation keeps, as the extension names it: a class word, or
    ``er:MIN-MAX``."""
    if difficulty is not None and er is not None:
        raise ValueError("difficulty, er: give one of the two")
    if er is not None:
        return "er:" + _word("er", er)
    return None if difficulty is None else _word("difficulty", difficulty)


def generate(
    n: int,
    *,
    seed: int,
    start: int = 0,
    minimal: bool = False,
    min_clues: Optional[int] = None,
    symmetry: str = "none",
    difficulty: Optional[str] = None,
    er: Optional[str] = None,
    with_solution: bool = False,
    threads: int = 0,
) -> Union[List[str], Generated]:
    """Makes ``n`` uniquely solvable puzzles: puzzle ``start + i`` of a seed
    is line ``start + i + 1`` of ``batchdoku generate -n ... --seed SEED``
    with the same options, so any range can be made on its own. ``n``,
    ``seed`` and ``start`` are integers from 0 to 2**64 - 1, and the last
    index, ``start + n - 1``, too (a ValueError otherwise).

    ``difficulty`` keeps the candidates of a ``rate`` class, ``er`` those
    whose Sudoku Explainer rating is in a range (``"4.5-6.2"``, as
    ``generate --er``), in order.

    Returns the puzzles (81 characters, ``.`` for blanks), or with
    ``with_solution`` a :class:`Generated` of puzzles and solutions.

    >>> batchdoku.generate(2, seed=7) == batchdoku.generate(1, seed=7) + batchdoku.generate(1, seed=7, start=1)
    True
    """
    n, seed, start = (_integer(name, v, 0, 2**64 - 1, "an integer from 0 to 2**64 - 1") for name, v in (("n", n), ("seed", seed), ("start", start)))
    if start + n > 2**64:
        raise ValueError(f"start + n: puzzles {start} to {start + n - 1} were asked for, but the last index is 2**64 - 1")
    clues = 0 if min_clues is None else _integer("min_clues", min_clues, 0, 81, "an integer from 0 to 81")
    symmetry = _word("symmetry", symmetry)
    difficulty = _keep(difficulty, er)
    puzzles, solutions = _batchdoku.generate(n, seed, start, bool(minimal), clues, symmetry, difficulty, _threads(threads))
    if with_solution:
        return Generated(puzzles, solutions)
    return puzzles


def read(path: Union[str, "os.PathLike[str]"], *, input: str = "auto", column: Optional[Union[str, int]] = None, threads: int = 0) -> ReadResult:
    """Reads every puzzle of a file the command line reads (memory-mapped:
    line or grid form, CRLF, the Kaggle and other CSV layouts, npy, Parquet),
    gzip, zstd or bzip2 compressed or not, or a folder of such files as Spark
    writes them (part files in name order), ``input`` and ``column`` as its
    ``--input`` and ``--column``.

    Malformed records are reported in ``malformed``, not raised.
    """
    column = _column("column", column)
    input = _word("input", input)
    name = _path("path", path)
    puzzles, lines, bad = _batchdoku.read(name, input, column, _threads(threads))
    return ReadResult(puzzles, lines, bad)


def _column(what: str, column: Any) -> Optional[str]:
    """A column given by name or by number from 1, as the command line's
    ``--column`` takes it."""
    if isinstance(column, bool) or (column is not None and not isinstance(column, (str, int, np.integer))):
        raise TypeError(f"{what}: a name or a number from 1 was expected, not {column!r}")
    if isinstance(column, (int, np.integer)):
        return str(_integer(what, column, 1, 2**32 - 1, "a column number from 1 (or a name)"))
    if column is not None:
        return _word(what, column)
    return None


def _path(what: str, path: Any) -> str:
    """A file's path as text (bytes too; undecodable bytes as surrogates, as
    os.listdir gives them)."""
    try:
        name = os.fsdecode(path)
        os.fsencode(name)
    except TypeError:
        raise TypeError(f"{what}: a file's path (str, bytes or os.PathLike) was expected, not {type(path).__name__}") from None
    except UnicodeError:
        raise ValueError(f"{what}: {path!r} cannot be a file's name (it holds a character the file system's encoding cannot write)") from None
    return name


class VerifyReport(NamedTuple):
    """What :func:`verify_files` found, as ``batchdoku verify --format json``
    reports it: ``records`` checked, ``failures`` (one dict per wrong record:
    ``record`` from 1, ``puzzle_file``, ``puzzle_line``, ``answer_file``,
    ``answer_line``, ``reason``) and ``count_mismatch`` (None, or why the two
    inputs hold different numbers of records)."""

    records: int
    failures: List[Dict[str, Any]]
    count_mismatch: Optional[str]

    @property
    def ok(self) -> bool:
        """True when every answer is right and the record counts agree."""
        return not self.failures and self.count_mismatch is None

    @property
    def passed(self) -> int:
        return self.records - len(self.failures)


def verify_files(
    puzzles: Union[str, "os.PathLike[str]"],
    answers: Optional[Union[str, "os.PathLike[str]"]] = None,
    *,
    input: str = "auto",
    column: Optional[Union[str, int]] = None,
    answer_column: Optional[Union[str, int]] = None,
    unique: bool = False,
    max_count: int = 10_000_000,
    threads: int = 0,
) -> VerifyReport:
    """Checks a file of answers against its file of puzzles, as ``batchdoku
    verify PUZZLES [ANSWERS]`` does, on the same engine: files or folders of
    part files in any form the command line reads, memory-mapped and paired
    record by record. ``answers`` in any form ``solve`` writes (line, csv,
    jsonl, a Parquet table, an npy array with its statuses file), or a CSV
    naming a solution column; without it, each puzzle record carries its
    answer (``puzzle,solution`` lines, the Kaggle CSV, a ``solve`` output).
    ``input``, ``column``, ``answer_column``, ``unique`` and ``max_count`` as
    the command's options. Unreadable inputs raise ValueError; wrong answers
    are reported, located by file and line, not raised.
    """
    column = _column("column", column)
    answer_column = _column("answer_column", answer_column)
    input = _word("input", input)
    puzzles_name = _path("puzzles", puzzles)
    answers_name = None if answers is None else _path("answers", answers)
    max_count = _integer("max_count", max_count, 1, 2**32 - 1, "a count from 1")
    records, found, mismatch = _batchdoku.verify_files(
        puzzles_name, answers_name, input, column, answer_column, bool(unique), max_count, _threads(threads)
    )
    keys = ("record", "puzzle_file", "puzzle_line", "answer_file", "answer_line", "reason")
    return VerifyReport(records, [dict(zip(keys, f)) for f in found], mismatch)
