"""Shared fixtures: the command-line binary (built if needed) and the
shipped sample, so the package can be compared with the CLI."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "datasets" / "sample.txt"


@pytest.fixture(scope="session")
def cli() -> str:
    """The `batchdoku` binary: $BATCHDOKU_BIN, else the release build of
    this checkout (built here when missing)."""
    path = os.environ.get("BATCHDOKU_BIN")
    if path:
        return path
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--bin", "batchdoku"],
        cwd=ROOT,
        check=True,
    )
    return str(ROOT / "target" / "release" / "batchdoku")


@pytest.fixture(scope="session")
def sample_lines() -> list:
    return [l[:81] for l in SAMPLE.read_text().splitlines() if l.strip() and not l.startswith("#")]


def run_cli(cli: str, *args: str, stdin: bytes = b"") -> str:
    out = subprocess.run([cli, *args], input=stdin, capture_output=True, check=True)
    return out.stdout.decode()
