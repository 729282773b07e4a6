"""The native engine. Call it through the `batchdoku` package, which checks
arguments and turns every accepted input into one of these specs.

`threads` (0: BATCHDOKU_THREADS, else one per core) is the most a call
runs on: never more than it has work for (a task of 1,024 records, a
puzzle to make) nor than max(4 x cores, 64); the pools of the last two
sizes are kept, older ones end their threads."""

from typing import List, Optional, Tuple

import numpy as np
import numpy.typing as npt

# ("ints", uint8 view (N, 81 * size), size, signed) | ("texts", list)
# | ("offsets", int64 offsets, uint8 data, bool valid or None)
# | ("fixed", uint8 (N, width))
Spec = tuple

__version__: str

def solve(
    spec: Spec, limit: int, solver: str, threads: int
) -> Tuple[
    npt.NDArray[np.uint8], npt.NDArray[np.uint8], npt.NDArray[np.uint32], npt.NDArray[np.uint64]
]: ...
def verify(
    spec: Spec,
    answers: tuple,
    unique: bool,
    threads: int,
    status: Optional[Spec] = None,
    count: Optional[Spec] = None,
) -> Tuple[npt.NDArray[np.bool_], List[Optional[str]]]: ...
def verify_files(
    puzzles: str,
    answers: Optional[str],
    input: str,
    column: Optional[str],
    answer_column: Optional[str],
    unique: bool,
    max_count: int,
    threads: int,
) -> Tuple[int, List[Tuple[int, str, int, str, int, str]], Optional[str]]: ...
def grade(
    spec: Spec, steps: bool, threads: int
) -> Tuple[
    npt.NDArray[np.uint8],
    npt.NDArray[np.uint16],
    npt.NDArray[np.uint16],
    npt.NDArray[np.uint16],
    npt.NDArray[np.uint8],
    Optional[tuple],
]: ...
def grade_words() -> Tuple[List[str], List[str]]: ...
def rate(
    spec: Spec, threads: int
) -> Tuple[
    npt.NDArray[np.uint32], npt.NDArray[np.uint64], npt.NDArray[np.uint8], npt.NDArray[np.uint8]
]: ...
def canon(
    spec: Spec, threads: int
) -> Tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint64], npt.NDArray[np.uint8]]: ...
def generate(
    n: int,
    seed: int,
    start: int,
    minimal: bool,
    min_clues: int,
    symmetry: str,
    difficulty: Optional[str],
    threads: int,
) -> Tuple[List[str], List[str]]: ...
def read(
    path: str, input: str, column: Optional[str], threads: int
) -> Tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64], List[Tuple[int, int, str]]]: ...
def status_words() -> List[str]: ...
def rate_words() -> Tuple[List[str], List[str]]: ...
def run_cli(argv: List[str]) -> int: ...
def generate_matches(seed: int, start: int, end: int, minimal: bool, min_clues: int, symmetry: str, difficulty: str, threads: int) -> List[int]: ...
def generate_at(seed: int, indexes: List[int], minimal: bool, min_clues: int, symmetry: str, threads: int) -> Tuple[List[str], List[str]]: ...
TRIES_PER_PUZZLE: int
