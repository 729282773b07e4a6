"""Thread pools (issue 34): calls with ever new `threads` values do not
pile threads up, and no call starts more threads than it has work for,
nor more than max(4 x cores, 64)."""

import os
import time

import pytest

import batchdoku
from test_solve import PUZZLE

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc/self/task (Linux)")


# The most threads a call starts (the engine's most_threads).
CAP = max(4 * len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 4, 64)


def live_threads() -> int:
    return len(os.listdir("/proc/self/task"))


def settled(at_most: int) -> int:
    """The process's threads, once at most `at_most` (a dropped pool's
    threads end when they wake), or after five seconds."""
    end = time.monotonic() + 5
    while live_threads() > at_most and time.monotonic() < end:
        time.sleep(0.02)
    return live_threads()


def steady() -> int:
    """The process's threads once their count has held for 0.2 s."""
    count, since = live_threads(), time.monotonic()
    end = since + 5
    while time.monotonic() - since < 0.2 and time.monotonic() < end:
        time.sleep(0.02)
        now = live_threads()
        if now != count:
            count, since = now, time.monotonic()
    return count


def warm() -> None:
    # The pools of sizes 1 and 2 (one puzzle; three tasks on two threads).
    batchdoku.solve([PUZZLE], threads=1)
    batchdoku.solve([PUZZLE] * 3000, threads=2)


def test_threads_do_not_pile_up_across_thread_counts():
    warm()
    base = steady()
    for t in range(1, 41):
        batchdoku.generate(40, seed=1, threads=t)  # forty puzzles: up to forty threads
        # at most the two last pools live (t and t - 1 threads)
        assert settled(base + 2 * t) <= base + 2 * t, t
    warm()
    # back to the pools of the start: the others' threads have ended
    assert settled(base) <= base + 1


def test_no_more_threads_than_work_nor_than_the_cap():
    warm()
    base = steady()
    for call in (
        lambda: batchdoku.solve([PUZZLE], threads=3000),
        lambda: batchdoku.rate([PUZZLE] * 10, threads=500),
        lambda: batchdoku.canon([PUZZLE], threads=100),
        lambda: batchdoku.verify([PUZZLE], [PUZZLE], threads=3000),
        lambda: batchdoku.generate(1, seed=1, threads=3000),
    ):
        call()
        # one record, or one puzzle to make: one thread (the pool of size 1)
        assert live_threads() <= base + 1
    # more asked than the cap: the cap (had it not one, a few threads more)
    batchdoku.generate(CAP + 20, seed=2, threads=CAP + 20)
    assert live_threads() <= base + CAP + 2
    warm()
    assert settled(base) <= base + 1


def test_threads_still_change_nothing_in_the_results():
    lines = [PUZZLE] * 2100
    want = batchdoku.solve(lines, limit=2).solution_strings()
    for t in (1, 2, 3, 64, CAP + 5):
        assert batchdoku.solve(lines, limit=2, threads=t).solution_strings() == want
    assert batchdoku.generate(9, seed=4, threads=1) == batchdoku.generate(9, seed=4, threads=70)
