"""Inputs at the edges (issue 34): arrays of one-character cells, strings
with lone surrogates, whole tables, and every bad argument of every
function raising TypeError or ValueError with a message naming it."""

import os

import numpy as np
import pytest

import batchdoku
from test_solve import EMPTY, INVALID, PUZZLE, SOLUTION, UNSOLVABLE

KINDS = [PUZZLE, EMPTY, UNSOLVABLE, INVALID, SOLUTION]


def statuses(puzzles, **options):
    return batchdoku.solve(puzzles, **options).status.tolist()


# ---------------------------------------------------------------------
# (N, 81) and (N, 9, 9) arrays of cells as strings


@pytest.mark.parametrize("dtype", ["<U1", ">U1", "S1", "<U2", "S3", "object"])
def test_an_array_of_one_character_cells_is_a_puzzle_a_row(dtype):
    want = batchdoku.solve(KINDS, limit=2)
    cells = np.array([list(p) for p in KINDS]).astype(dtype)
    assert cells.shape == (5, 81)
    for form in (cells, cells.reshape(5, 9, 9), np.asfortranarray(cells), np.repeat(cells, 2, axis=0)[::2]):
        r = batchdoku.solve(form, limit=2)
        assert r.status.tolist() == want.status.tolist(), (dtype, form.shape)
        assert r.solution_strings() == want.solution_strings()
    # the other calls read it the same way
    assert batchdoku.rate(cells).difficulty.tolist() == batchdoku.rate(KINDS).difficulty.tolist()
    assert batchdoku.canon(cells).form_strings() == batchdoku.canon(KINDS).form_strings()
    # and as answers: solutions as rows of cells
    solutions = np.array([list(s) for s in want.solution_strings()[:1] * 3]).astype(dtype)
    assert batchdoku.verify([PUZZLE] * 3, solutions).ok.tolist() == [True] * 3


def test_cell_arrays_with_odd_cells_are_malformed_in_their_row():
    cells = np.array([list(PUZZLE)] * 4)
    cells[1, 40] = "é"  # not a cell character, and not ASCII
    cells[2, 80] = ""  # a row one cell short
    cells[3, 3] = "\ud800"  # a lone surrogate
    assert statuses(cells) == ["solved", "malformed", "malformed", "malformed"]
    ascii_cells = np.array([list(PUZZLE)] * 3, dtype="S1")
    ascii_cells[1, 0] = b""
    ascii_cells[2, 5] = b"x"
    assert statuses(ascii_cells) == ["solved", "malformed", "malformed"]
    # an object array of integer cells is an integer array
    ints = np.array([[0 if c == "." else int(c) for c in PUZZLE]] * 2, dtype=object)
    assert statuses(ints) == ["solved", "solved"]


def test_a_column_of_puzzles_and_odd_shapes():
    column = np.array([[PUZZLE], [INVALID]])  # (N, 1): one puzzle a row
    assert statuses(column) == ["solved", "invalid"]
    assert statuses(np.array([[PUZZLE], [INVALID]], dtype=object)) == ["solved", "invalid"]
    for shape in [(2, 2), (1, 3, 3), ()]:
        with pytest.raises(ValueError, match=r"\(N, 81\) or \(N, 9, 9\)"):
            batchdoku.solve(np.full(shape, PUZZLE))
    with pytest.raises(TypeError, match="cells as str"):
        batchdoku.solve(np.array([list(PUZZLE[:80]) + [None]], dtype=object))


# ---------------------------------------------------------------------
# Lone surrogates: one malformed row, not a failed call

LONE = ["\ud800", PUZZLE[:40] + "\udfff" + PUZZLE[41:], PUZZLE + "\udcff", "\udcff" * 81]


def test_a_lone_surrogate_is_one_malformed_row_in_every_input_form():
    pd = pytest.importorskip("pandas")
    puzzles = [PUZZLE] + LONE + [INVALID]
    want = ["solved"] + ["malformed"] * 4 + ["invalid"]
    forms = {
        "list": puzzles,
        "tuple": tuple(puzzles),
        "generator": (p for p in puzzles),
        "numpy U": np.array(puzzles),
        "numpy object": np.array(puzzles, dtype=object),
        "pandas": pd.Series(puzzles),
        "pandas with a missing one": pd.Series(puzzles + [None]),
    }
    for name, form in forms.items():
        got = statuses(form)
        assert got[: len(want)] == want, name
    assert statuses(pd.Series(puzzles + [None]))[-1] == "malformed"
    assert statuses(pd.Series(puzzles + [float("nan")]))[-1] == "malformed"
    # more than the 16 items looked at up front
    assert statuses([PUZZLE] * 20 + ["\ud800"]) == ["solved"] * 20 + ["malformed"]
    rated = batchdoku.rate(puzzles)
    assert rated.difficulty.tolist()[1:5] == ["malformed"] * 4
    assert batchdoku.canon(puzzles).status.tolist() == ["ok", "malformed", "malformed", "malformed", "malformed", "invalid"]


def test_a_lone_surrogate_in_answers_and_statuses_is_one_wrong_answer():
    v = batchdoku.verify([PUZZLE] * 3, [SOLUTION, "\ud800", SOLUTION[:80] + "\udc99"])
    assert v.ok.tolist() == [True, False, False]
    assert "not a grid" in v.reason[1]
    v = batchdoku.verify([PUZZLE, UNSOLVABLE], [SOLUTION, None], status=["\ud800solved", "unsolvable"])
    assert v.ok.tolist() == [False, True]
    assert "unknown status" in v.reason[0]


def test_lone_surrogates_in_options_and_paths(tmp_path):
    with pytest.raises(ValueError, match=r"symmetry: unknown symmetry .*ud800"):
        batchdoku.generate(1, seed=1, symmetry="\ud800")
    with pytest.raises(ValueError, match=r"difficulty: unknown difficulty"):
        batchdoku.generate(1, seed=1, difficulty="hard\ud800")
    with pytest.raises(ValueError, match="solver"):
        batchdoku.solve([PUZZLE], solver="fast\ud800")
    with pytest.raises(ValueError, match="input"):
        batchdoku.read(tmp_path, input="\ud800")
    with pytest.raises(ValueError, match="cannot be a file's name"):
        batchdoku.read(str(tmp_path / "\ud800.txt"))
    # A name that is not UTF-8 (bytes 0xff), as os.listdir gives it with
    # surrogateescape, or as bytes: the file is read.
    name = os.path.join(os.fsencode(tmp_path), b"\xff.txt")
    with open(name, "w") as f:
        f.write(PUZZLE + "\n" + INVALID + "\n")
    for path in (name, os.fsdecode(name)):
        assert len(batchdoku.read(path).puzzles) == 2
    csv = tmp_path / "p.csv"
    csv.write_text("puzzle\n" + PUZZLE + "\n")
    with pytest.raises(ValueError, match="column"):
        batchdoku.read(csv, column="\ud800")


# ---------------------------------------------------------------------
# Bad arguments: TypeError (a wrong type) or ValueError (a wrong value)


def raises_clearly(call, kind, match):
    with pytest.raises((TypeError, ValueError)) as e:
        call()
    assert type(e.value) is kind, (type(e.value), e.value)
    assert match in str(e.value), str(e.value)


def test_whole_tables_are_refused_asking_for_a_column():
    pa = pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    tables = {
        "pandas": pd.DataFrame({"quizzes": [PUZZLE]}),
        "pyarrow Table": pa.table({"quizzes": [PUZZLE]}),
        "pyarrow RecordBatch": pa.record_batch({"quizzes": [PUZZLE]}),
    }
    for name, table in tables.items():
        for call in (batchdoku.solve, batchdoku.rate, batchdoku.canon, lambda t: batchdoku.verify(t, [SOLUTION])):
            raises_clearly(lambda: call(table), TypeError, "df['quizzes']")
    # a table exported through the Arrow PyCapsule interface (polars, DuckDB)
    class Exported:
        def __init__(self, table):
            self.table = table

        def __arrow_c_stream__(self, requested_schema=None):
            return self.table.__arrow_c_stream__(requested_schema)

    raises_clearly(lambda: batchdoku.solve(Exported(tables["pyarrow Table"])), TypeError, "pass the column")
    raises_clearly(lambda: batchdoku.solve(pa.scalar(PUZZLE)), TypeError, "pyarrow Array or ChunkedArray")
    # one column is what they take
    assert statuses(tables["pandas"]["quizzes"]) == ["solved"]
    assert statuses(tables["pyarrow Table"]["quizzes"]) == ["solved"]


def test_every_numeric_argument_is_checked():
    p = [PUZZLE]
    bad_counts = [(-1, ValueError), (1.0, TypeError), (True, TypeError), ("2", TypeError), (None, TypeError)]
    for value, kind in bad_counts + [(0, ValueError), (2**32, ValueError), (2**64, ValueError)]:
        raises_clearly(lambda: batchdoku.solve(p, limit=value), kind, "limit")
    assert statuses(p, limit=2**32 - 1) == ["unique"]
    assert statuses(p, limit=np.int64(2)) == ["unique"]
    calls = {
        "solve": lambda t: batchdoku.solve(p, threads=t),
        "verify": lambda t: batchdoku.verify(p, [SOLUTION], threads=t),
        "rate": lambda t: batchdoku.rate(p, threads=t),
        "canon": lambda t: batchdoku.canon(p, threads=t),
        "generate": lambda t: batchdoku.generate(1, seed=1, threads=t),
    }
    for name, call in calls.items():
        for value, kind in bad_counts:
            raises_clearly(lambda: call(value), kind, "threads")
        call(2**70)  # as many as the engine starts: capped, not an error
    for name in ("n", "seed", "start"):
        for value, kind in bad_counts + [(2**64, ValueError)]:
            args = {"n": 1, "seed": 1, "start": 0, name: value}
            raises_clearly(lambda: batchdoku.generate(args.pop("n"), **args), kind, name)
    for value, kind in [(-1, ValueError), (82, ValueError), (True, TypeError), (30.0, TypeError), ("30", TypeError)]:
        raises_clearly(lambda: batchdoku.generate(1, seed=1, min_clues=value), kind, "min_clues")
    for name in ("symmetry", "difficulty"):
        raises_clearly(lambda: batchdoku.generate(1, seed=1, **{name: 3}), TypeError, name)
    raises_clearly(lambda: batchdoku.solve(p, solver=None), TypeError, "solver")


def test_read_arguments_are_checked(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text(PUZZLE + "\n")
    for value, kind, match in [
        (0, ValueError, "column"),
        (-3, ValueError, "column"),
        (2**64, ValueError, "column"),
        (True, TypeError, "column"),
        (1.0, TypeError, "column"),
    ]:
        raises_clearly(lambda: batchdoku.read(path, column=value), kind, match)
    raises_clearly(lambda: batchdoku.read(path, input=3), TypeError, "input")
    raises_clearly(lambda: batchdoku.read(3), TypeError, "path")
    raises_clearly(lambda: batchdoku.read(path, threads=-1), ValueError, "threads")
    assert len(batchdoku.read(path, threads=300).puzzles) == 1  # capped, not an error


def test_bad_answers_are_called_answers():
    pa = pytest.importorskip("pyarrow")
    p = [PUZZLE]
    for n, answers, kind, match in [
        (1, [1], TypeError, "answers[0]"),
        (20, [SOLUTION] * 19 + [5], TypeError, "answers[19]"),
        (1, pa.array([1]), TypeError, "answers: an Arrow array"),
        (1, pa.array([[1.5] * 81]), TypeError, "answers: lists of integers"),
        (1, np.zeros((1, 80), np.uint8), ValueError, "answers: an integer array"),
        (1, np.zeros((1, 81)), TypeError, "answers: an integer array"),
        (1, SOLUTION, TypeError, "answers: a sequence"),
        (1, 42, TypeError, "answers: a list of str"),
    ]:
        raises_clearly(lambda: batchdoku.verify(p * n, answers), kind, match)
    # and puzzles are still puzzles
    raises_clearly(lambda: batchdoku.verify([1], [SOLUTION]), TypeError, "puzzles[0]")
    raises_clearly(lambda: batchdoku.verify([PUZZLE] * 20 + [1], [SOLUTION] * 21), TypeError, "puzzles[20]")
