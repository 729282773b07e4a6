"""solve() on every input kind, every status, and against the CLI."""

import numpy as np
import pytest

import batchdoku
from conftest import SAMPLE, run_cli

PUZZLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"
INVALID = "11" + "." * 79
# Givens that break no rule yet leave a cell without a candidate.
UNSOLVABLE = "12345678." + "........9" + "." * 63
EMPTY = "." * 81


def cells(p: str) -> np.ndarray:
    return np.array([0 if c == "." else int(c) for c in p], np.uint8)


def test_every_status_in_its_row():
    r = batchdoku.solve([PUZZLE, EMPTY, UNSOLVABLE, INVALID, "garbage", None, ""], limit=2)
    assert r.status.tolist() == ["unique", "multiple", "unsolvable", "invalid", "malformed", "malformed", "malformed"]
    assert r.count.tolist() == [1, 2, 0, 0, 0, 0, 0]
    assert r.solution_strings()[0] == SOLUTION
    assert r.solution_strings()[2:] == [None] * 5
    assert (r.solutions[2:] == 0).all()
    assert r.solutions.dtype == np.uint8 and r.solutions.shape == (7, 81)
    assert len(r) == 7
    one = batchdoku.solve([PUZZLE], limit=1)
    assert one.status.tolist() == ["solved"]


def test_every_input_kind_gives_the_same_answers(sample_lines):
    lines = sample_lines[:300]
    want = batchdoku.solve(lines).solution_strings()
    assert all(w is not None and len(w) == 81 for w in want)
    grid = np.stack([cells(p) for p in lines])
    kinds = {
        "tuple": tuple(lines),
        "bytes": [p.encode() for p in lines],
        "uint8": grid,
        "9x9": grid.reshape(-1, 9, 9),
        "fortran": np.asfortranarray(grid),
        "strided": np.repeat(grid, 2, axis=0)[::2],
        "S": np.array([p.encode() for p in lines]),
        "U": np.array(lines),
        "object": np.array(lines, dtype=object),
        "generator": (p for p in lines),
        "zeros": [p.replace(".", "0") for p in lines],
        "trailing": [p + ",anything" for p in lines],
    }
    for dtype in ["int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", ">i4", "<u2"]:
        kinds[dtype] = grid.astype(dtype)
    for name, puzzles in kinds.items():
        assert batchdoku.solve(puzzles).solution_strings() == want, name


def test_arrow_and_pandas_inputs(sample_lines):
    pa = pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    lines = sample_lines[:200] + [None, "bad"]
    want = batchdoku.solve(lines).status.tolist()
    assert want[-2:] == ["malformed", "malformed"]
    arrays = {
        "string": pa.array(lines, pa.string()),
        "large_string": pa.array(lines, pa.large_string()),
        "binary": pa.array([None if x is None else x.encode() for x in lines], pa.binary()),
        "dictionary": pa.array(lines).dictionary_encode(),
        "chunked": pa.chunked_array([lines[:50], lines[50:]]),
        "sliced": pa.array(["x"] + lines)[1:],
        "series": pd.Series(lines),
        "series_string": pd.Series(lines, dtype="string"),
    }
    if hasattr(pa, "string_view"):
        arrays["string_view"] = pa.array(lines, pa.string_view())
    for name, puzzles in arrays.items():
        got = batchdoku.solve(puzzles)
        assert got.status.tolist() == want, name
        assert got.solution_strings()[:200] == batchdoku.solve(lines[:200]).solution_strings(), name


def test_arrow_pycapsule_exporters(sample_lines):
    """Anything that exports Arrow through the PyCapsule interface (polars,
    DuckDB, nanoarrow, arro3) is read as Arrow, not item by item."""
    pa = pytest.importorskip("pyarrow")

    class Exporter:
        def __init__(self, data, stream):
            self.data, self.stream = data, stream

        def __getattr__(self, name):
            if name == ("__arrow_c_stream__" if self.stream else "__arrow_c_array__"):
                return getattr(self.data, name)
            raise AttributeError(name)

        def __iter__(self):
            raise AssertionError("read item by item")

    lines = sample_lines[:50] + [None, "bad"]
    want = batchdoku.solve(lines)
    for data, stream in [
        (pa.array(lines, pa.string_view() if hasattr(pa, "string_view") else pa.large_string()), False),
        (pa.chunked_array([lines[:20], lines[20:]]), True),
        (pa.array([None if p is None else cells(p).tolist() for p in lines[:50]] + [None, [1]], pa.list_(pa.int8())), False),
    ]:
        got = batchdoku.solve(Exporter(data, stream))
        assert got.status.tolist() == want.status.tolist()
        assert got.solution_strings() == want.solution_strings()


def test_arrow_lists_of_digits(sample_lines):
    """Puzzles as lists of 81 integers, or nine rows of nine (ML datasets,
    Spark's array<int>): the same answers as their strings; a null, a
    null cell or a wrong length is a malformed row in its place."""
    pa = pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    lines = sample_lines[:100]
    want = batchdoku.solve(lines).solution_strings()
    flat = [cells(p).tolist() for p in lines]
    rows = [[f[i : i + 9] for i in range(0, 81, 9)] for f in flat]
    bad_flat = [None, flat[0][:80], flat[0][:80] + [None], flat[0] + [0]]
    bad_rows = [None, rows[0][:8], rows[0][:8] + [rows[0][8][:8]], rows[0][:8] + [None], rows[0][:8] + [[1, 2, 3, 4, 5, 6, 7, 8, None]]]
    arrays = {
        "list<int32>": pa.array(flat + bad_flat, pa.list_(pa.int32())),
        "large_list<int8>": pa.array(flat + bad_flat, pa.large_list(pa.int8())),
        "sliced": pa.array([flat[1]] + flat + bad_flat, pa.list_(pa.int64()))[1:],
        "chunked": pa.chunked_array([pa.array(flat[:30], pa.list_(pa.uint8())), pa.array(flat[30:] + bad_flat, pa.list_(pa.uint8()))]),
        "series": pd.Series(flat + bad_flat),
        "list<list<int16>>": pa.array(rows + bad_rows, pa.list_(pa.list_(pa.int16()))),
    }
    for name, puzzles in arrays.items():
        got = batchdoku.solve(puzzles)
        assert got.solution_strings()[:100] == want, name
        assert set(got.status[100:].tolist()) == {"malformed"}, name
    fixed = pa.FixedSizeListArray.from_arrays(pa.array(np.stack([cells(p) for p in lines]).reshape(-1)), 81)
    assert batchdoku.solve(fixed).solution_strings() == want
    assert batchdoku.verify(arrays["list<int32>"][:100], want).ok.all()
    assert batchdoku.canon(arrays["list<list<int16>>"][:5]).form_strings() == batchdoku.canon(lines[:5]).form_strings()
    with pytest.raises(TypeError, match="lists of integers"):
        batchdoku.solve(pa.array([[1.0] * 81]))
    # Read as the command line's Parquet reader reads them: a null list is
    # a missing answer, a bad cell `?` at its column, a wrong length told.
    sol = cells(want[0]).tolist()
    answers = pa.array([None, sol[:80], sol[:80] + [None], sol[:80] + [12], sol + [1], sol], pa.list_(pa.int8()))
    assert batchdoku.verify([lines[0]] * 6, answers).reason == [
        "the answer is missing (None)",
        "solution is not a grid: too short: 80 cells, need 81",
        "solution is not a grid: bad character '?' at column 81",
        "solution is not a grid: bad character '?' at column 81",
        "solution is not a grid: too long: more than 81 cells (column 82)",
        None,
    ]
    grid = [sol[i : i + 9] for i in range(0, 81, 9)]
    nested = pa.array([None, grid[:8], grid[:8] + [grid[8][:8]]], pa.list_(pa.list_(pa.int16())))
    assert batchdoku.verify([lines[0]] * 3, nested).reason == [
        "the answer is missing (None)",
        "solution is not a grid: too short: 72 cells, need 81",
        "solution is not a grid: bad character '?' at column 73",
    ]


def test_out_of_range_cells_are_malformed_rows_not_errors():
    grid = np.zeros((3, 81), np.int64)
    grid[0] = cells(PUZZLE)
    grid[1, 5] = 10
    grid[2, 7] = -1
    r = batchdoku.solve(grid)
    assert r.status.tolist() == ["solved", "malformed", "malformed"]


def test_bad_arguments_raise_naming_what_was_expected():
    with pytest.raises(ValueError, match=r"\(N, 81\) or \(N, 9, 9\)"):
        batchdoku.solve(np.zeros((2, 80), np.uint8))
    with pytest.raises(TypeError, match="dtype float64"):
        batchdoku.solve(np.zeros((2, 81)))
    with pytest.raises(TypeError, match=r"for one puzzle pass \[puzzle\]"):
        batchdoku.solve(PUZZLE)
    with pytest.raises(TypeError, match=r"puzzles\[1\]: str or bytes"):
        batchdoku.solve([PUZZLE, 5])
    with pytest.raises(TypeError):
        batchdoku.solve([PUZZLE] * 20 + [5])
    with pytest.raises(TypeError, match="pandas Series"):
        batchdoku.solve(42)
    with pytest.raises(ValueError, match="limit"):
        batchdoku.solve([PUZZLE], limit=0)
    with pytest.raises(ValueError, match="solver"):
        batchdoku.solve([PUZZLE], solver="quantum")
    with pytest.raises(ValueError, match="threads"):
        batchdoku.solve([PUZZLE], threads=-1)


def test_empty_inputs_give_empty_results():
    for empty in ([], np.zeros((0, 81), np.uint8), np.array([], dtype="S81")):
        r = batchdoku.solve(empty)
        assert len(r) == 0 and r.solutions.shape == (0, 81)


def test_reference_solvers_and_threads_agree(sample_lines):
    lines = sample_lines[:100]
    want = batchdoku.solve(lines, limit=2)
    for solver in ["mrv", "backtrack"]:
        got = batchdoku.solve(lines, limit=2, solver=solver, threads=1)
        assert got.status.tolist() == want.status.tolist()
        assert (got.solutions == want.solutions).all()
    assert (batchdoku.solve(lines, threads=1).solutions == batchdoku.solve(lines, threads=3).solutions).all()


def test_agrees_with_the_cli_on_the_sample(cli):
    out = run_cli(cli, "solve", "-q", "--limit", "2", "--format", "csv", str(SAMPLE)).splitlines()[1:]
    rows = [line.split(",") for line in out]
    r = batchdoku.solve(batchdoku.read(SAMPLE).puzzles, limit=2)
    assert r.status.tolist() == [f[2] for f in rows]
    assert r.count.tolist() == [int(f[3]) for f in rows]
    assert [s or "" for s in r.solution_strings()] == [f[4] for f in rows]
    assert r.guesses.tolist() == [int(f[5]) for f in rows]


def test_to_arrow_and_pandas():
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("pandas")
    r = batchdoku.solve([PUZZLE, INVALID])
    t = r.to_arrow()
    assert t.schema.field("solutions").type == pa.int32()
    assert t.column("solution").to_pylist() == [SOLUTION, None]
    df = r.to_pandas()
    assert df["status"].tolist() == ["solved", "invalid"]
    assert repr(r) == "SolveResult(2 puzzles: 1 invalid, 1 solved)"


def pencilmarks(p: str) -> str:
    """The 729-character form of ``p``: each blank keeps the digits no
    given of its row, column or box holds; a given keeps only itself."""
    out = []
    for i, c in enumerate(p):
        r, k = divmod(i, 9)
        if c not in ".0":
            out.append("".join(d if d == c else "." for d in "123456789"))
            continue
        seen = {
            p[j]
            for j in range(81)
            if j // 9 == r or j % 9 == k or (j // 27 == i // 27 and j % 9 // 3 == k // 3)
        }
        out.append("".join(d if d not in seen else "." for d in "123456789"))
    return "".join(out)


def test_pencilmark_strings_solve_verify_and_rate_like_their_puzzles(sample_lines):
    lines = sample_lines[:200]
    marks = [pencilmarks(p) for p in lines]
    assert all(len(m) == 729 for m in marks)
    want = batchdoku.solve(lines, limit=2)
    got = batchdoku.solve(marks, limit=2)
    assert got.status.tolist() == want.status.tolist()
    assert (got.solutions == want.solutions).all()
    assert batchdoku.verify(marks, got, unique=True).ok.all()
    # Another puzzle's solution keeps the rules but not these candidates.
    wrong = batchdoku.verify(marks[:2], got.solutions[[1, 0]])
    assert not wrong.ok.any()
    assert "not a candidate" in wrong.reason[0]
    a, b = batchdoku.rate(lines), batchdoku.rate(marks)
    assert a.difficulty.tolist() == b.difficulty.tolist()
    assert a.guesses.tolist() == b.guesses.tolist()
    # A cell with no candidate; two cells of a row pinned to 1; a typo.
    empty = "." * 9 + marks[0][9:]
    pinned = "1........1........" + marks[0][18:]
    typo = marks[0][:100] + "x" + marks[0][101:]
    r = batchdoku.solve([empty, pinned, typo, marks[0]])
    assert r.status.tolist() == ["unsolvable", "invalid", "malformed", "solved"]
