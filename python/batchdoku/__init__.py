"""batchdoku: the batchdoku Sudoku engine for Python.

Batch calls over whole datasets, with the GIL released and the work spread
over a pool of ``threads`` (0: all cores, or ``BATCHDOKU_THREADS``):

>>> import batchdoku, numpy as np
>>> p = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
>>> r = batchdoku.solve([p, "not a puzzle"])
>>> list(r.status)
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
string array, a pyarrow string Array or ChunkedArray, or a pandas Series of
strings. A record that is not a puzzle gets the status ``malformed`` in its
row; only a call that cannot be made (a wrong shape, type or option)
raises ``TypeError`` or ``ValueError``. Ctrl-C during a long call raises
``KeyboardInterrupt`` within a second.

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
from typing import Any, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _batchdoku

__version__ = _batchdoku.__version__

__all__ = [
    "solve",
    "verify",
    "rate",
    "canon",
    "generate",
    "read",
    "SolveResult",
    "VerifyResult",
    "RateResult",
    "ReadResult",
    "Generated",
]

_STATUS_WORDS = np.array(_batchdoku.status_words())
_INFERENCE_WORDS, _DIFFICULTY_WORDS = (np.array(w) for w in _batchdoku.rate_words())

_SOLVERS = ("fast", "mrv", "backtrack")


def _is_from(obj: Any, module: str) -> bool:
    return type(obj).__module__.split(".")[0] == module


def _threads(threads: int) -> int:
    """A ``threads`` argument: 0 (the default count) or more. The engine
    never starts more than max(4 x cores, 64), nor more than the call has
    work for, so a larger number asks for that many."""
    if not isinstance(threads, (int, np.integer)) or isinstance(threads, bool) or threads < 0:
        raise ValueError(f"threads: a count of 0 or more was expected, not {threads!r}")
    return min(int(threads), 2**20)


def _is_arrow_list(t: Any) -> bool:
    import pyarrow as pa

    return pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)


def _arrow_list_text(arr: Any) -> tuple:
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
        raise TypeError(f"puzzles: lists of integers were expected, not {arr.type}")
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


def _arrow_spec(arr: Any) -> tuple:
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
        return _arrow_list_text(arr)
    if not (
        pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
        or pa.types.is_string_view(t)
        or pa.types.is_binary_view(t)
        or pa.types.is_null(t)
    ):
        raise TypeError(f"puzzles: an Arrow array of strings or of integer lists was expected, not {t}")
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
    if _is_from(puzzles, "pyarrow"):
        return _arrow_spec(puzzles)
    if _is_from(puzzles, "pandas"):
        import pyarrow as pa

        return _arrow_spec(pa.array(puzzles, from_pandas=True))
    if hasattr(puzzles, "__arrow_c_stream__") or hasattr(puzzles, "__arrow_c_array__"):
        # The Arrow PyCapsule interface (polars, DuckDB, nanoarrow, arro3):
        # taken over without a copy.
        import pyarrow as pa

        if hasattr(puzzles, "__arrow_c_stream__"):
            return _arrow_spec(pa.chunked_array(puzzles))
        return _arrow_spec(pa.array(puzzles))
    if isinstance(puzzles, (str, bytes)):
        raise TypeError(f"{what}: a sequence of puzzles was expected; for one puzzle pass [puzzle]")
    if isinstance(puzzles, (list, tuple)):
        return _list_spec(puzzles, what)
    try:
        items = list(puzzles)
    except TypeError:
        raise TypeError(
            f"{what}: a list of str, a numpy array (N, 81) or (N, 9, 9), a pyarrow array "
            f"or a pandas Series was expected, not {type(puzzles).__name__}"
        ) from None
    return _list_spec(items, what)


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
    if kind in "SU":
        if a.ndim != 1:
            a = a.reshape(-1)
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
        return _list_spec(a.reshape(-1).tolist(), what)
    raise TypeError(f"{what}: an integer array (0 for blanks) or a string array was expected, not dtype {a.dtype}")


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
    if not isinstance(limit, (int, np.integer)) or isinstance(limit, bool) or limit < 1:
        raise ValueError(f"limit: a count of 1 or more was expected, not {limit!r}")
    if solver not in _SOLVERS:
        raise ValueError(f"solver: one of {', '.join(_SOLVERS)} was expected, not {solver!r}")
    codes, solutions, count, guesses = _batchdoku.solve(_spec(puzzles), int(limit), solver, _threads(threads))
    return SolveResult(codes, solutions, count, guesses)


def verify(puzzles: Any, answers: Any, *, unique: bool = False, threads: int = 0) -> VerifyResult:
    """Checks each answer against its puzzle, as ``batchdoku verify`` does.

    ``answers`` may be a :class:`SolveResult` (statuses, counts and
    solutions all checked), solutions in any form ``puzzles`` takes (str:
    81 digits or a status word such as ``unsolvable``; an (N, 81) array),
    one per puzzle. ``unique`` also demands exactly one solution.

    >>> p = ["1" * 81]
    >>> batchdoku.verify(p, ["invalid"]).ok.tolist()
    [True]
    """
    if isinstance(answers, SolveResult):
        spec = ("result", answers._codes, answers.count.astype(np.uint32), np.ascontiguousarray(answers.solutions, np.uint8))
    else:
        spec = _spec(answers, "answers")
    ok, reason = _batchdoku.verify(_spec(puzzles), spec, bool(unique), _threads(threads))
    return VerifyResult(ok, reason)


def rate(puzzles: Any, *, threads: int = 0) -> RateResult:
    """Rates every puzzle, with the values ``batchdoku rate`` writes:
    solutions (up to 2), the fast solver's guesses, the strongest
    inference needed (``singles``, ``locked-candidates``, ``search``) and
    the difficulty (``easy``, ``medium``, ``hard``, ``extreme``);
    ``invalid`` or ``malformed`` in both for such records.
    """
    sols, guesses, inf, dif = _batchdoku.rate(_spec(puzzles), _threads(threads))
    return RateResult(sols, guesses, _INFERENCE_WORDS[inf], _DIFFICULTY_WORDS[dif])


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


def generate(
    n: int,
    *,
    seed: int,
    start: int = 0,
    minimal: bool = False,
    min_clues: Optional[int] = None,
    symmetry: str = "none",
    difficulty: Optional[str] = None,
    with_solution: bool = False,
    threads: int = 0,
) -> Union[List[str], Generated]:
    """Makes ``n`` uniquely solvable puzzles: puzzle ``start + i`` of a seed
    is line ``start + i + 1`` of ``batchdoku generate -n ... --seed SEED``
    with the same options, so any range can be made on its own.

    Returns the puzzles (81 characters, ``.`` for blanks), or with
    ``with_solution`` a :class:`Generated` of puzzles and solutions.

    >>> batchdoku.generate(2, seed=7) == batchdoku.generate(1, seed=7) + batchdoku.generate(1, seed=7, start=1)
    True
    """
    for name, value in (("n", n), ("seed", seed), ("start", start)):
        if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or not 0 <= value < 2**64:
            raise ValueError(f"{name}: an integer from 0 to 2**64 - 1 was expected, not {value!r}")
    if min_clues is not None and (not isinstance(min_clues, (int, np.integer)) or not 0 <= min_clues <= 81):
        raise ValueError(f"min_clues: an integer from 0 to 81 was expected, not {min_clues!r}")
    puzzles, solutions = _batchdoku.generate(
        int(n), int(seed), int(start), bool(minimal), int(min_clues or 0), symmetry, difficulty, _threads(threads)
    )
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
    if isinstance(column, bool) or (column is not None and not isinstance(column, (str, int))):
        raise TypeError(f"column: a name or a number from 1 was expected, not {column!r}")
    puzzles, lines, bad = _batchdoku.read(os.fspath(path), input, None if column is None else str(column), _threads(threads))
    return ReadResult(puzzles, lines, bad)
