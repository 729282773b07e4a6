#!/usr/bin/env bash
# Every test of the project, on a fresh machine: the Rust tests, then the
# Python package built into a virtual environment of its own (made here,
# with what it needs from PyPI) and its pytest suite, Spark tests included
# when they exist and Java is there.
#
#   scripts/test-all.sh            # BATCHDOKU_VENV=DIR to reuse a venv
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

cargo test --release

venv=${BATCHDOKU_VENV:-$root/target/py-venv}
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "maturin>=1.9.4,<2" "pytest>=7" "numpy>=1.26" "pyarrow>=18" "pandas>=2.2,<3"
# Builds the extension (profile release-py, see python/pyproject.toml) and
# installs the package into the venv.
VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" \
    maturin develop --quiet --manifest-path python/Cargo.toml
BATCHDOKU_BIN="$root/target/release/batchdoku" \
    "$venv/bin/python" -m pytest -q python/tests
