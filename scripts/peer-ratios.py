#!/usr/bin/env python3
"""The speed targets of issues 36 and 37 against their peers, measured side
by side in one sitting: each round runs ours and the peer one after the
other, and the table gives medians over the rounds (these machines drift by
10-30% from minute to minute, so single runs say little).

    python3 scripts/peer-ratios.py [--rounds N] [--min-time S] [--file F ...]
                                   [SECTION ...]

Sections (all by default):
  solve     the fast solver against the better of the `sudoku` crate and
            tdoku, one thread, limit 2 (issue 37: 1.15x or more)
  parquet   `solve -j 2` of a million easy puzzles from Parquet in 64Ki-row
            and 122,880-row groups against the line file (0.85x or more)
  canon     `canon -j 1` against patminlex in its own process (1.5x or more)
  generate  `generate --minimal -j 1` against the crate's generator (4x)
  grade     `grade -j 1` against skfr (10x), and `grade -j 2` against -j 1

The peers are measured only, never part of the project; each is looked for
where the issues' build notes put it, or at the path in its variable, and a
section whose peer or data is missing says so and is skipped:
  PEER_BENCH       /tmp/peer/release/peer-bench (built there from
                   ../shared/peer-bench when missing)
  TDOKU_BENCH      /tmp/tdoku/build/run_benchmark
  PATMINLEX_BENCH  /tmp/patminlex-bench (../shared/peer-bench/patminlex_bench.cpp)
  SKFR             /tmp/skfr/src/skfr
`--file F` adds a file (a held-out set, say) to the solve and canon
sections. Prints a markdown table per section, with the CPU, the date and
the commit, for BENCHMARKS.md.
"""

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "datasets"
BIN = ROOT / "target" / "release" / "batchdoku"
SOLVE_FILES = ["easy_100k", "minimal_100k", "17_clue", "magictour_top1465",
               "forum_hardest_1905_11plus", "multi_20k"]
CANON_FILES = ["minimal_100k", "17_clue", "magictour_top1465"]


def peer(variable, default):
    path = Path(os.environ.get(variable, default))
    return path if path.is_file() and os.access(path, os.X_OK) else None


def crate_peer():
    """peer-bench, built from ../shared/peer-bench (under /tmp, apart from
    the project) when it is missing and no other path is given."""
    found = peer("PEER_BENCH", "/tmp/peer/release/peer-bench")
    manifest = ROOT.parent / "shared" / "peer-bench" / "Cargo.toml"
    if found or "PEER_BENCH" in os.environ or not manifest.is_file():
        return found
    print("building peer-bench into /tmp/peer (once)", file=sys.stderr)
    env = dict(os.environ, CARGO_TARGET_DIR="/tmp/peer", RUSTFLAGS="-C target-cpu=native")
    subprocess.run(["cargo", "build", "--release", "--quiet", "--manifest-path", manifest],
                   env=env, check=True)
    return peer("PEER_BENCH", "/tmp/peer/release/peer-bench")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw).stdout


def wall(cmd, **kw):
    """Seconds a command takes as a whole process, output thrown away."""
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)
    return time.perf_counter() - start


def puzzle_lines(path):
    """The file's records: its lines less blank ones and # comments."""
    lines = Path(path).read_text().splitlines()
    return [l for l in lines if l.strip() and not l.startswith("#")]


def med(xs):
    return statistics.median(xs)


def spread(ratios, unit="", places=2):
    """Per-round ratios as their median and range."""
    f = lambda x: f"{x:.{places}f}"
    return f"{f(med(ratios))}{unit} ({f(min(ratios))}-{f(max(ratios))})"


def table(title, header, rows):
    print(f"\n### {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


def section_solve(args, files):
    crate = crate_peer()
    tdoku = peer("TDOKU_BENCH", "/tmp/tdoku/build/run_benchmark")
    if not crate and not tdoku:
        print("\nsolve: no peer built (PEER_BENCH, TDOKU_BENCH): skipped")
        return
    t = str(args.min_time)
    # tdoku takes whole seconds (a fraction reads as 0: no result).
    tdoku_secs = str(max(1, round(args.min_time)))
    rows = []
    for f in files:
        ours, theirs, ratios = [], {"crate": [], "tdoku": []}, []
        for _ in range(args.rounds):
            fast = json.loads(run([BIN, "bench", "--solvers", "fast", "--limit", "2",
                                   "--threads", "1", "--min-time", t, "--format", "json", f]))
            ours.append(fast[0]["puzzles_per_sec"])
            best = 0.0
            if crate:
                r = json.loads(run([crate, "rate", f, "2", t]))["puzzles_per_sec"]
                theirs["crate"].append(r)
                best = max(best, r)
            if tdoku:
                # Its csv: ..., solver, puzzles/s, usec/puzzle, %no_guess, guesses.
                line = run([tdoku, "-s", "tdoku", "-t", tdoku_secs, "-w", "1", "-c", "1", f])
                r = float(line.strip().splitlines()[-1].split(",")[5])
                theirs["tdoku"].append(r)
                best = max(best, r)
            ratios.append(ours[-1] / best)
        fmt = lambda xs: f"{med(xs):,.0f}" if xs else "n/a"
        rows.append([Path(f).stem, fmt(ours), fmt(theirs["crate"]), fmt(theirs["tdoku"]),
                     spread(ratios)])
    table(f"fast solver, one thread, limit 2 ({args.rounds} rounds, {t} s each; target 1.15x)",
          ["file", "fast (puzzles/s)", "sudoku crate", "tdoku", "fast / better peer, median (range)"],
          rows)


def section_parquet(args, scratch):
    easy = DATA / "easy_100k.txt"
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        print("\nparquet: pyarrow missing: skipped")
        return
    if not easy.is_file():
        print(f"\nparquet: {easy} missing: skipped")
        return
    puzzles = puzzle_lines(easy) * 10
    lines = scratch / "easy_1m.txt"
    lines.write_text("\n".join(puzzles) + "\n")
    table_ = pa.table({"id": pa.array(range(len(puzzles)), pa.int64()), "quizzes": puzzles})
    files = {}
    for size in (65536, 122880):
        path = scratch / f"easy_1m_{size}.parquet"
        pq.write_table(table_, path, row_group_size=size, compression="snappy")
        files[size] = path
    rows = []
    for size, path in files.items():
        ratios = []
        for _ in range(args.rounds):
            line_s = wall([BIN, "solve", "-q", "-j", "2", lines, "-o", "/dev/null"])
            parquet_s = wall([BIN, "solve", "-q", "-j", "2", path, "-o", "/dev/null"])
            ratios.append(line_s / parquet_s)
        rows.append([f"{size:,} rows a group", spread(ratios, "x", places=3)])
    table(f"Parquet against the line file, `solve -q -j 2`, 1,000,000 easy puzzles "
          f"({args.rounds} alternated pairs; target 0.85x)",
          ["Parquet file (id, quizzes; snappy)", "rate vs line file, median (range)"], rows)


def section_canon(args, files):
    patminlex = peer("PATMINLEX_BENCH", "/tmp/patminlex-bench")
    if not patminlex:
        print("\ncanon: patminlex not built (PATMINLEX_BENCH): skipped")
        return
    rows = []
    for f in files:
        n = len(puzzle_lines(f))
        ours, theirs, ratios = [], [], []
        for _ in range(args.rounds):
            ours.append(n / wall([BIN, "canon", "-q", "-j", "1", f, "-o", "/dev/null"]))
            out = run([patminlex, f])
            theirs.append(float(out.split(" puzzles/s")[0].split()[-1]))
            ratios.append(ours[-1] / theirs[-1])
        rows.append([Path(f).stem, f"{med(ours):,.0f}", f"{med(theirs):,.0f}", spread(ratios)])
    table(f"`canon -q -j 1` (whole command) against patminlex (in-process, no I/O), "
          f"medians of {args.rounds} (target 1.5x)",
          ["file", "canon (puzzles/s)", "patminlex (puzzles/s)", "canon / patminlex, median (range)"],
          rows)


def section_generate(args):
    crate = crate_peer()
    if not crate:
        print("\ngenerate: peer-bench not built (PEER_BENCH): skipped")
        return
    ours, theirs, ratios = [], [], []
    for _ in range(args.rounds):
        ours.append(wall([BIN, "generate", "-q", "-n", "20000", "--minimal", "-j", "1",
                          "--seed", "7", "-o", "/dev/null"]))
        theirs.append(wall([crate, "generate", "20000", "7"]))
        ratios.append(theirs[-1] / ours[-1])
    table(f"`generate -q -n 20000 --minimal -j 1 --seed 7` against `peer-bench generate 20000 7`, "
          f"{args.rounds} alternated pairs (target 4x)",
          ["batchdoku (s)", "sudoku crate (s)", "crate / batchdoku, median (range)"],
          [[f"{med(ours):.3f}", f"{med(theirs):.3f}",
            spread(ratios, "x")]])


def section_grade(args, scratch):
    skfr = peer("SKFR", "/tmp/skfr/src/skfr")
    sources = {"minimal_100k": 2000, "magictour_top1465": 200}
    if not skfr:
        print("\ngrade: skfr not built (SKFR): skipped")
        return
    rows = []
    for name, count in sources.items():
        src = DATA / f"{name}.txt"
        if not src.is_file():
            continue
        sample = scratch / f"{name}_{count}.txt"
        sample.write_text("\n".join(puzzle_lines(src)[:count]) + "\n")
        one, two, theirs, ratios = [], [], [], []
        env = dict(os.environ, OMP_NUM_THREADS="1")
        for _ in range(args.rounds):
            one.append(wall([BIN, "grade", "-q", "-j", "1", sample, "-o", "/dev/null"]))
            # skfr rates NAME.txt into NAME_rat.txt, in the file's folder.
            theirs.append(wall([skfr, f"-i{sample.with_suffix('')}"], env=env, cwd=scratch))
            two.append(wall([BIN, "grade", "-q", "-j", "2", sample, "-o", "/dev/null"]))
            ratios.append(theirs[-1] / one[-1])
        rows.append([f"{name}, first {count:,}", f"{med(one):.3f}", f"{med(theirs):.3f}",
                     spread(ratios, "x"),
                     f"{med(one) / med(two):.2f}x"])
    table(f"`grade -q` against skfr (OMP_NUM_THREADS=1), {args.rounds} rounds "
          f"(targets 10x, and -j 2 at 1.8x -j 1)",
          ["puzzles", "grade -j 1 (s)", "skfr (s)", "skfr / grade, median (range)",
           "-j 2 vs -j 1"], rows)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    everything = ["solve", "parquet", "canon", "generate", "grade"]
    # Checked here: argparse refuses an empty list against `choices`.
    p.add_argument("sections", nargs="*", metavar="SECTION",
                   help=f"any of {', '.join(everything)} (default: all)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--min-time", type=float, default=1.0, help="seconds a solve measurement runs")
    p.add_argument("--file", action="append", default=[], help="another file for solve and canon")
    args = p.parse_args()
    for s in args.sections:
        if s not in everything:
            p.error(f"unknown section {s!r} (one of {', '.join(everything)})")
    sections = args.sections or everything
    if not DATA.is_dir():
        sys.exit(f"{DATA} not found: the peers are compared on the shared datasets")
    subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "batchdoku"],
                   cwd=ROOT, check=True)
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "unknown CPU")
    commit = run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"]).strip()
    print(f"{datetime.date.today()}, {cpu}, {os.cpu_count()} cores, commit {commit}: "
          f"`{' '.join(['python3', 'scripts/peer-ratios.py', *sys.argv[1:]])}`")
    extra = [str(Path(f).resolve()) for f in args.file]
    pick = lambda names: [str(DATA / f"{n}.txt") for n in names if (DATA / f"{n}.txt").is_file()] + extra
    scratch = Path(tempfile.mkdtemp(prefix="peer-ratios-"))
    try:
        for s in sections:
            if s == "solve":
                section_solve(args, pick(SOLVE_FILES))
            elif s == "parquet":
                section_parquet(args, scratch)
            elif s == "canon":
                section_canon(args, pick(CANON_FILES))
            elif s == "generate":
                section_generate(args)
            elif s == "grade":
                section_grade(args, scratch)
            sys.stdout.flush()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
