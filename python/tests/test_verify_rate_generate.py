"""verify(), rate() and generate() against the CLI and independent checks."""

import json

import numpy as np
import pytest

import batchdoku
from conftest import SAMPLE, run_cli
from test_solve import EMPTY, INVALID, PUZZLE, SOLUTION, UNSOLVABLE


def rules_hold(puzzle: str, solution: str) -> bool:
    """An independent check: a full grid obeying the rules that keeps the givens."""
    g = [[int(solution[9 * r + c]) for c in range(9)] for r in range(9)]
    full = set(range(1, 10))
    rows = all(set(row) == full for row in g)
    cols = all({g[r][c] for r in range(9)} == full for c in range(9))
    boxes = all(
        {g[r][c] for r in range(br, br + 3) for c in range(bc, bc + 3)} == full
        for br in (0, 3, 6)
        for bc in (0, 3, 6)
    )
    givens = all(p in ".0" or p == s for p, s in zip(puzzle, solution))
    return rows and cols and boxes and givens


def test_verify_accepts_right_answers_in_every_form(sample_lines):
    lines = sample_lines[:200]
    r = batchdoku.solve(lines, limit=2)
    assert batchdoku.verify(lines, r).ok.all()
    assert batchdoku.verify(lines, r.solutions).ok.all()
    assert batchdoku.verify(lines, r.solution_strings(), unique=True).ok.all()
    assert batchdoku.verify(np.array(lines), np.array(r.solution_strings())).ok.all()


def test_verify_names_what_is_wrong_as_the_cli_does(cli, tmp_path):
    puzzles = [PUZZLE, PUZZLE, INVALID, UNSOLVABLE, EMPTY, "x"]
    changed = "4" + SOLUTION[1:]
    answers = [SOLUTION, changed, "unsolvable", "unsolvable", "unique", "malformed"]
    v = batchdoku.verify(puzzles, answers)
    assert v.ok.tolist() == [True, False, False, True, False, True]
    assert v.reason[0] is None
    (tmp_path / "p.txt").write_text("\n".join(puzzles) + "\n")
    (tmp_path / "a.txt").write_text("\n".join(answers) + "\n")
    import subprocess

    out = subprocess.run([cli, "verify", str(tmp_path / "p.txt"), str(tmp_path / "a.txt")], capture_output=True, text=True).stdout
    for i, why in enumerate(v.reason):
        if why is not None:
            assert f"): {why}" in out, (i, why, out)
    with pytest.raises(ValueError, match="2 answers for 1 puzzles"):
        batchdoku.verify([PUZZLE], [SOLUTION, SOLUTION])
    zero = batchdoku.verify([PUZZLE], np.zeros((1, 81), np.uint8))
    assert not zero.ok[0] and "row of zeros" in zero.reason[0]


def test_rate_matches_the_cli(cli):
    out = run_cli(cli, "rate", "-q", "--format", "csv", str(SAMPLE)).splitlines()
    header = out[0].split(",")
    rows = [dict(zip(header, l.split(","))) for l in out[1:]]
    r = batchdoku.rate(batchdoku.read(SAMPLE).puzzles)
    assert r.solutions.tolist() == [int(x["solutions"]) for x in rows]
    assert r.guesses.tolist() == [int(x["guesses"]) for x in rows]
    assert r.inference.tolist() == [x["inference"] for x in rows]
    assert r.difficulty.tolist() == [x["difficulty"] for x in rows]
    odd = batchdoku.rate([INVALID, "bad"])
    assert odd.inference.tolist() == ["invalid", "malformed"]
    assert odd.difficulty.tolist() == ["invalid", "malformed"]


@pytest.mark.parametrize(
    "options,flags",
    [
        ({}, []),
        ({"minimal": True}, ["--minimal"]),
        ({"minimal": True, "symmetry": "rotational"}, ["--minimal", "--symmetry", "rotational"]),
        ({"min_clues": 30}, ["--min-clues", "30"]),
        ({"difficulty": "hard"}, ["--difficulty", "hard"]),
    ],
)
def test_generate_ranges_equal_the_cli(cli, options, flags):
    n = 40
    lines = run_cli(cli, "generate", "-q", "-n", str(n), "--seed", "11", "--with-solution", *flags).splitlines()
    whole = batchdoku.generate(n, seed=11, with_solution=True, **options)
    assert [f"{p},{s}" for p, s in zip(whole.puzzles, whole.solutions)] == lines
    # Any range on its own: the same lines.
    part = batchdoku.generate(15, seed=11, start=20, threads=1, **options)
    assert part == whole.puzzles[20:35]
    for p, s in zip(whole.puzzles, whole.solutions):
        assert rules_hold(p, s)
    assert batchdoku.solve(whole.puzzles, limit=2).status.tolist() == ["unique"] * n


def test_generate_refuses_bad_options():
    with pytest.raises(ValueError, match="symmetry"):
        batchdoku.generate(1, seed=1, symmetry="spiral")
    with pytest.raises(ValueError, match="difficulty"):
        batchdoku.generate(1, seed=1, difficulty="brutal")
    with pytest.raises(ValueError, match="seed"):
        batchdoku.generate(1, seed=-1)
    with pytest.raises(ValueError, match="seed: an integer from 0 to 2"):
        batchdoku.generate(1, seed=2**64)
    assert batchdoku.generate(1, seed=2**64 - 1) == batchdoku.generate(2, seed=2**64 - 1)[:1]
    with pytest.raises(TypeError):
        batchdoku.generate(1)


def test_generate_refuses_a_range_past_the_last_index():
    # Indexes start to start + n - 1 must be below 2**64: a range that
    # wrapped would make fewer puzzles than asked, silently.
    last = 2**64 - 1
    assert len(batchdoku.generate(1, seed=3, start=last)) == 1
    both = batchdoku.generate(2, seed=3, start=last - 1)
    assert both == batchdoku.generate(1, seed=3, start=last - 1) + batchdoku.generate(1, seed=3, start=last)
    assert batchdoku.generate(0, seed=3, start=last) == []
    for n, start in [(2, last), (3, last - 1), (2**64 - 1, 2), (10, last - 8)]:
        with pytest.raises(ValueError, match=r"start \+ n"):
            batchdoku.generate(n, seed=3, start=start)
        with pytest.raises(ValueError, match=r"start \+ n"):
            batchdoku.generate(n, seed=3, start=start, difficulty="easy", with_solution=True)


SOLVE_KINDS = [PUZZLE, EMPTY, UNSOLVABLE, INVALID, "garbage", None, "", "1" * 81]


def test_verify_reads_statuses_and_counts_beside_the_solutions():
    """A solve output's status, solutions and solution columns, given as
    status= and count= beside the solutions, are the claim: right for
    every kind of record, whatever the solve limit."""
    for limit in (1, 2, 5):
        r = batchdoku.solve(SOLVE_KINDS, limit=limit)
        for solutions in (r.solution_strings(), r.solutions):
            for count in (None, r.count, r.count.tolist(), r.count.astype(float)):
                v = batchdoku.verify(SOLVE_KINDS, solutions, status=r.status, count=count)
                assert v.ok.all(), (limit, v.reason)
        # the solutions alone cannot say why there is none
        alone = batchdoku.verify(SOLVE_KINDS, r.solution_strings())
        assert alone.ok.tolist() == [True, True] + [False] * 6


def test_verify_statuses_as_the_cli_reads_them(cli, tmp_path):
    """False statuses and counts fail with the command line's reasons
    (its verify of a CSV with status, solutions and solution columns)."""
    import subprocess

    rows = [
        # puzzle, status, count, solution
        (PUZZLE, "unsolvable", "0", ""),
        (PUZZLE, "invalid", "", ""),
        (PUZZLE, "malformed", "0", ""),
        (UNSOLVABLE, "solved", "1", ""),
        (UNSOLVABLE, "invalid", "0", ""),
        (INVALID, "unsolvable", "0", ""),
        (INVALID, "malformed", "", ""),
        ("garbage", "invalid", "0", ""),
        ("garbage", "unsolvable", "", ""),
        (EMPTY, "unique", "1", SOLUTION),
        (EMPTY, "multiple", "1", ""),
        (EMPTY, "multiple", "3", ""),
        (PUZZLE, "unique", "2", SOLUTION),
        (PUZZLE, "solved", "-1", SOLUTION),
        (PUZZLE, "solvd", "1", SOLUTION),
        (PUZZLE, "", "", SOLUTION),
        (PUZZLE, "", "", ""),
        (PUZZLE, "unique", "", SOLUTION),
        (UNSOLVABLE, "unsolvable", "", ""),
        (INVALID, "invalid", "0", ""),
        ("garbage", "malformed", "0", ""),
        (None, "malformed", "0", None),
        (PUZZLE, "solved", "1", '"' + SOLUTION),
    ]
    puzzles = [r[0] for r in rows]
    v = batchdoku.verify(puzzles, [r[3] for r in rows], status=[r[1] for r in rows], count=[r[2] for r in rows])
    assert v.ok.tolist()[-6:-1] == [True] * 5
    # The same rows through the command line.
    (tmp_path / "p.txt").write_text("".join((p if p is not None else "x") + "\n" for p in puzzles))
    def quoted(s):
        return '"' + (s or "").replace('"', '""') + '"'
    (tmp_path / "a.csv").write_text("status,solutions,solution\n" + "".join(f"{quoted(s)},{quoted(c)},{quoted(a)}\n" for _, s, c, a in rows))
    out = subprocess.run([cli, "verify", str(tmp_path / "p.txt"), str(tmp_path / "a.csv")], capture_output=True, text=True).stdout
    cli_reasons = {}
    for line in out.splitlines():
        if line.startswith("record "):
            n, why = line[len("record ") :].split(" ", 1)
            cli_reasons[int(n) - 1] = why.split("): ", 1)[1]
    assert {i: why for i, why in enumerate(v.reason) if why is not None} == cli_reasons
    assert len(cli_reasons) == len(rows) - 6, out  # rows 15, 17 to 21 are right


def test_verify_reads_a_table_of_answers_as_the_cli_reads_one():
    pd = pytest.importorskip("pandas")
    r = batchdoku.solve(SOLVE_KINDS, limit=2)
    for table in (r.to_pandas(), r.to_arrow(), r.to_arrow().to_batches()[0]):
        assert batchdoku.verify(SOLVE_KINDS, table).ok.all()
    # names in any case; a float count (pandas, once a value is missing)
    frame = r.to_pandas().rename(columns={"status": "Status", "solutions": "SOLUTIONS", "solution": "Solution"})
    frame["SOLUTIONS"] = frame["SOLUTIONS"].astype(float)
    frame.loc[0, "SOLUTIONS"] = float("nan")
    assert batchdoku.verify(SOLVE_KINDS, frame).ok.all()
    frame.loc[1, "SOLUTIONS"] = 1.5
    frame.loc[2, "Status"] = "unique"
    v = batchdoku.verify(SOLVE_KINDS, frame)
    assert v.ok.tolist() == [True, False, False] + [True] * 5
    assert "solution count \"1.5\" is not a non-negative integer" in v.reason[1]
    # a table with only a solution column: the solutions alone
    only = pd.DataFrame({"Answer": r.solution_strings()})
    assert batchdoku.verify(SOLVE_KINDS, only).ok.tolist() == [True, True] + [False] * 6
    with pytest.raises(TypeError, match="pass the column"):
        batchdoku.verify(SOLVE_KINDS, pd.DataFrame({"x": r.solution_strings()}))
    with pytest.raises(ValueError, match="SolveResult carries its own"):
        batchdoku.verify(SOLVE_KINDS, r, status=r.status)
    with pytest.raises(ValueError, match="status: 1 values for 8 answers"):
        batchdoku.verify(SOLVE_KINDS, r.solution_strings(), status=["solved"])
    with pytest.raises(TypeError, match="status words"):
        batchdoku.verify(SOLVE_KINDS, r.solution_strings(), status=np.zeros(8, np.uint8))
    with pytest.raises(TypeError, match="count"):
        batchdoku.verify(SOLVE_KINDS, r.solution_strings(), status=r.status, count=[[1]] * 8)


def _cli_report(cli, *args):
    import json
    import subprocess

    out = subprocess.run([cli, "verify", "--format", "json", *args], capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def _same_as_cli(report, cli_report):
    assert report.records == cli_report["records"]
    assert report.failures == cli_report["failures"]
    assert report.count_mismatch == cli_report["count_mismatch"]
    assert report.ok == (cli_report["failed"] == 0 and cli_report["count_mismatch"] is None)


def test_verify_files_reports_what_the_cli_reports(cli, tmp_path, sample_lines):
    """Two files paired by the engine the CLI uses: right answers, one wrong
    answer located by line, a missing record, and a Parquet solve output
    read beside its puzzles."""
    import pyarrow.parquet as pq

    puzzles = tmp_path / "p.txt"
    puzzles.write_text("\n".join(sample_lines) + "\n")
    answers = tmp_path / "a.csv"
    subprocess_out = run_cli(cli, "solve", "--format", "csv", "-q", str(puzzles))
    answers.write_text(subprocess_out)
    report = batchdoku.verify_files(puzzles, answers)
    assert report.ok and report.records == len(sample_lines) and report.passed == report.records
    _same_as_cli(report, _cli_report(cli, str(puzzles), str(answers)))

    # Two cells of the third solution swapped: the third record is wrong.
    rows = subprocess_out.splitlines()
    fields = rows[3].split(",")
    solution = fields[4]
    a, b = next((i, j) for i in range(81) for j in range(i + 1, 81) if solution[i] != solution[j])
    swapped = list(solution)
    swapped[a], swapped[b] = swapped[b], swapped[a]
    fields[4] = "".join(swapped)
    rows[3] = ",".join(fields)
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("\n".join(rows) + "\n")
    report = batchdoku.verify_files(puzzles, wrong, threads=2)
    assert not report.ok
    assert [f["record"] for f in report.failures] == [3]
    assert report.failures[0]["puzzle_line"] == 3
    _same_as_cli(report, _cli_report(cli, str(puzzles), str(wrong)))

    # An answer short: the counts differ, said as the CLI says it.
    short = tmp_path / "short.csv"
    short.write_text("\n".join(subprocess_out.splitlines()[:-1]) + "\n")
    report = batchdoku.verify_files(puzzles, short)
    assert report.count_mismatch is not None and not report.ok
    _same_as_cli(report, _cli_report(cli, str(puzzles), str(short)))

    # A Parquet solve output carries its puzzles and its claims.
    table = tmp_path / "solved.parquet"
    run_cli(cli, "solve", "--format", "parquet", "-q", "-o", str(table), str(puzzles))
    assert pq.read_table(table).num_rows == len(sample_lines)
    report = batchdoku.verify_files(table, unique=True)
    _same_as_cli(report, _cli_report(cli, "--unique", str(table)))
    assert report.records == len(sample_lines)


def test_verify_files_refuses_what_it_cannot_read(tmp_path):
    with pytest.raises(ValueError, match="nope"):
        batchdoku.verify_files(tmp_path / "nope.txt", tmp_path / "nope2.txt")
    p = tmp_path / "p.txt"
    p.write_text("." * 81 + "\n")
    with pytest.raises(ValueError, match="input"):
        batchdoku.verify_files(p, p, input="xml")
    with pytest.raises(TypeError, match="column"):
        batchdoku.verify_files(p, column=1.5)
    with pytest.raises(ValueError, match="standard input"):
        batchdoku.verify_files("-", p)


def test_grade_matches_the_cli_and_its_paths_replay(cli, sample_lines):
    """grade() gives what `batchdoku grade --format csv` writes, and every
    rated path replays to the solution solve() finds."""
    import csv
    import io

    puzzles = sample_lines[:400] + ["1" * 81, "." * 81, "bad"]
    r = batchdoku.grade(puzzles, steps=True, threads=2)
    rows = list(csv.DictReader(io.StringIO(run_cli(cli, "grade", "--format", "csv", "-q", stdin="\n".join(puzzles).encode() + b"\n"))))
    assert len(rows) == len(puzzles)
    assert r.status.tolist() == [row["status"] for row in rows]
    for name, got in (("er", r.er), ("ep", r.ep), ("ed", r.ed)):
        want = [float(row[name]) if row[name] else np.nan for row in rows]
        np.testing.assert_array_equal(got, np.array(want))
    assert r.hardest.tolist() == [row["hardest"] for row in rows]
    assert r.status[-3:].tolist() == ["invalid", "multiple", "malformed"]
    solved = batchdoku.solve(puzzles)
    paths = r.steps.to_pylist()
    assert len(paths) == len(puzzles) and paths[-1] == []
    for i, path in enumerate(paths):
        if r.status[i] != "rated":
            continue
        solution = solved.solution_strings()[i]
        grid = list(puzzles[i].replace(".", "0"))
        for step in path:
            if step["place"]:
                cell, digit = step["place"].split("=")
                row, col = int(cell[1]) - 1, int(cell[3]) - 1
                assert solution[row * 9 + col] == digit
                grid[row * 9 + col] = digit
            for e in step["eliminate"]:
                cell, digit = e.split("<>")
                assert solution[(int(cell[1]) - 1) * 9 + int(cell[3]) - 1] != digit
        assert "".join(grid) == solution
        assert max(s["rating"] for s in path) == r.er[i]
    # A chain's branches, as the command line's jsonl --steps writes them.
    jsonl = run_cli(cli, "grade", "--format", "jsonl", "--steps", "-q", stdin="\n".join(puzzles[:400]).encode() + b"\n")
    cli_chains = [[s.get("chains", []) for s in json.loads(line).get("steps") or []] for line in jsonl.splitlines()]
    assert cli_chains == [[s["chains"] for s in path] for path in paths[:400]]
    assert any(c for path in cli_chains for c in path), "the sample has chain steps"
    # Without steps: the same ratings, no paths.
    plain = batchdoku.grade(puzzles)
    assert plain.steps is None
    np.testing.assert_array_equal(plain.er, r.er)
    with pytest.raises(TypeError, match="steps"):
        batchdoku.grade(puzzles, steps="yes")


def test_generate_with_an_er_range_equals_the_cli(cli):
    want = run_cli(cli, "generate", "-n", "8", "--seed", "11", "--er", "3.0-4.5", "-q").split()
    assert batchdoku.generate(8, seed=11, er="3.0-4.5") == want
    assert batchdoku.generate(3, seed=11, er="3.0-4.5", start=5) == want[5:]
    graded = batchdoku.grade(want)
    assert ((graded.er >= 3.0) & (graded.er <= 4.5)).all()
    with pytest.raises(ValueError, match="er"):
        batchdoku.generate(1, seed=1, er="7.0")
    with pytest.raises(ValueError, match="one of the two"):
        batchdoku.generate(1, seed=1, er="3.0", difficulty="easy")
