"""Ctrl-C during a long call raises KeyboardInterrupt within a second, and
the GIL is free while the engine works."""

import signal
import subprocess
import sys
import textwrap
import threading
import time

import batchdoku

LONG = textwrap.dedent(
    """
    import signal, sys, time, batchdoku
    # Python's own Ctrl-C handler, whatever this process inherited: a
    # shell without job control starts background commands with SIGINT
    # ignored, and Python then leaves it ignored (CI run that way hung
    # here for 30 s).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # The reference backtracker on empty grids counting to a huge limit:
    # minutes of work unless stopped.
    print("start", flush=True)
    t = time.monotonic()
    try:
        batchdoku.solve(["." * 81] * 64, limit=10**9, solver="backtrack", threads=2)
    except KeyboardInterrupt:
        print("interrupted %.3f" % (time.monotonic() - t), flush=True)
        sys.exit(0)
    print("finished", flush=True)
    """
)


def test_ctrl_c_raises_keyboard_interrupt_within_a_second():
    child = subprocess.Popen([sys.executable, "-c", LONG], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "start"
        time.sleep(0.5)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=30)
        waited = time.monotonic() - sent
    finally:
        # A child that missed the signal would search for hours: never
        # leave it running.
        child.kill()
        child.wait()
    assert out.startswith("interrupted"), out
    assert waited < 1.0, waited


def test_the_gil_is_released_while_solving(sample_lines):
    # A Python thread keeps counting while a long call runs in another.
    ticks = []
    done = threading.Event()

    def count():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    batchdoku.solve(["." * 81] * 200, limit=20000, threads=1)
    done.set()
    t.join()
    assert len(ticks) > 20
