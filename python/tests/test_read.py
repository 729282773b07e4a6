"""read() on every file form the CLI reads."""

import numpy as np
import pytest

import batchdoku
from conftest import SAMPLE
from test_solve import PUZZLE, cells


def test_read_every_file_form(tmp_path, sample_lines):
    lines = sample_lines[:50]
    grid = np.stack([cells(p) for p in lines])
    files = {
        "line": "\n".join(lines) + "\n",
        "crlf": "\r\n".join(lines) + "\r\n",
        "kaggle": "quizzes,solutions\n" + "".join(p.replace(".", "0") + ",x\n" for p in lines),
        "rated": "id,puzzle,solution\n" + "".join(f"{i},{p},x\n" for i, p in enumerate(lines)),
        "grid": "\n\n".join("\n".join(p[9 * r : 9 * r + 9] for r in range(9)) for p in lines) + "\n",
    }
    for name, text in files.items():
        path = tmp_path / f"{name}.txt"
        path.write_text(text)
        r = batchdoku.read(path)
        assert (r.puzzles == grid).all(), name
        assert r.malformed == [], name
    np.save(tmp_path / "a.npy", grid.reshape(-1, 9, 9).astype(np.int32))
    r = batchdoku.read(tmp_path / "a.npy")
    assert (r.puzzles == grid).all()
    assert r.lines.tolist() == list(range(50))
    kaggle = batchdoku.read(tmp_path / "kaggle.txt")
    assert kaggle.lines.tolist() == list(range(1, 51))


def test_read_parquet_written_by_pyarrow(tmp_path, sample_lines):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    lines = sample_lines[:30] + [None]
    pq.write_table(pa.table({"id": range(31), "question": lines}), tmp_path / "t.parquet", row_group_size=7)
    r = batchdoku.read(tmp_path / "t.parquet")
    assert r.puzzles.shape == (31, 81)
    assert r.malformed == [(30, 30, "null: the row holds no puzzle")]
    assert batchdoku.solve(r.puzzles[:30]).status.tolist() == ["solved"] * 30


def test_read_parquet_of_digit_lists(tmp_path, sample_lines):
    """A pyarrow Parquet whose puzzles are lists of digits (flat, and nine
    rows of nine) reads as the same grids; a cell out of range is named."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    lines = sample_lines[:30]
    grid = np.stack([cells(p) for p in lines])
    flat = [g.tolist() for g in grid] + [grid[0].tolist()[:80] + [12]]
    rows = [[g[r : r + 9].tolist() for r in range(0, 81, 9)] for g in grid]
    pq.write_table(pa.table({"cells": pa.array(flat, pa.list_(pa.int8()))}), tmp_path / "flat.parquet", row_group_size=7)
    pq.write_table(pa.table({"sudoku": pa.array(rows, pa.list_(pa.list_(pa.int16())))}), tmp_path / "rows.parquet")
    r = batchdoku.read(tmp_path / "flat.parquet")
    assert (r.puzzles[:30] == grid).all()
    assert [(line, why) for _, line, why in r.malformed] == [(30, "bad character '?' at column 81")]
    assert (batchdoku.read(tmp_path / "rows.parquet").puzzles == grid).all()


def test_malformed_records_are_reported_with_their_lines(tmp_path):
    path = tmp_path / "m.txt"
    path.write_text(f"# comment\n{PUZZLE}\nnot a puzzle\n\n{PUZZLE}\n")
    r = batchdoku.read(path)
    assert r.lines.tolist() == [2, 3, 5]
    assert len(r.malformed) == 1
    index, line, reason = r.malformed[0]
    assert (index, line) == (1, 3) and "bad character" in reason
    assert (r.puzzles[1] == 0).all()


def test_read_errors_name_the_problem(tmp_path):
    with pytest.raises(ValueError, match="cannot open"):
        batchdoku.read(tmp_path / "missing.txt")
    with pytest.raises(ValueError, match="input"):
        batchdoku.read(SAMPLE, input="xml")
    with pytest.raises(ValueError, match="no column named"):
        (tmp_path / "c.csv").write_text("a,b\n1,2\n")
        batchdoku.read(tmp_path / "c.csv", column="puzzle")
