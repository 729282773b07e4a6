"""canon(): the command line's canonical forms, the same for a puzzle in
any disguise, from every input form."""

import random

import numpy as np

import batchdoku
from conftest import run_cli
from test_solve import EMPTY, INVALID, PUZZLE, UNSOLVABLE


def disguise(puzzle: str, rng: random.Random) -> str:
    """`puzzle` under a random member of the group, written independently of
    the Rust code: relabelled, transposed or not, rows and columns permuted
    within bands and stacks, bands and stacks permuted."""
    digits = list("123456789")
    rng.shuffle(digits)
    relabel = dict(zip("123456789", digits), **{".": ".", "0": "."})
    grid = [[relabel[puzzle[9 * r + c]] for c in range(9)] for r in range(9)]
    if rng.random() < 0.5:
        grid = [list(col) for col in zip(*grid)]

    def order() -> list:
        blocks = [0, 1, 2]
        rng.shuffle(blocks)
        out = []
        for b in blocks:
            inner = [0, 1, 2]
            rng.shuffle(inner)
            out += [3 * b + i for i in inner]
        return out

    rows, cols = order(), order()
    return "".join(grid[r][c] for r in rows for c in cols)


def test_canon_matches_the_cli(cli, tmp_path, sample_lines):
    puzzles = [PUZZLE, EMPTY, UNSOLVABLE, INVALID, "garbage"] + sample_lines[:200]
    path = tmp_path / "p.txt"
    path.write_text("\n".join(puzzles) + "\n")
    rows = [l.split(",") for l in run_cli(cli, "canon", "-q", "--format", "csv", str(path)).splitlines()[1:]]
    r = batchdoku.canon(puzzles)
    assert r.status.tolist() == [row[2] for row in rows]
    assert r.form_strings() == [row[3] or None for row in rows]
    assert [str(a) if s == "ok" else "" for a, s in zip(r.automorphisms.tolist(), r.status)] == [row[4] for row in rows]
    assert r.automorphisms[1] == 3_359_232


def test_disguised_copies_share_a_form_from_every_input_form(sample_lines):
    rng = random.Random(16)
    base = sample_lines[:100] + [EMPTY, UNSOLVABLE]
    copies = [disguise(p, rng) for p in base]
    a = batchdoku.canon(base)
    b = batchdoku.canon(copies)
    assert (a.status == "ok").all()
    assert a.form_strings() == b.form_strings()
    assert (a.automorphisms == b.automorphisms).all()
    # Distinct sample puzzles stay distinct.
    assert len(set(a.form_strings()[:100])) == 100
    # Integer arrays, bytes and Arrow give the same forms.
    ints = np.array([[0 if ch == "." else int(ch) for ch in p] for p in copies], dtype=np.int16)
    assert (batchdoku.canon(ints, threads=1).forms == a.forms).all()
    assert batchdoku.canon([p.encode() for p in copies]).form_strings() == a.form_strings()
    import pyarrow as pa

    assert batchdoku.canon(pa.array(copies)).form_strings() == a.form_strings()
