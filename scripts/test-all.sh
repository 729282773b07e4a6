#!/usr/bin/env bash
# Every test of the project, on a fresh machine: the Rust tests, then the
# Python package built into a virtual environment of its own (made here,
# with what it needs from PyPI) and its pytest suite, the Spark tests
# (pyspark in local mode) included. Spark needs Java 17: when `java` is
# missing this installs a JRE with apt-get if it can, else says that the
# Spark tests are skipped.
#
#   scripts/test-all.sh            # BATCHDOKU_VENV=DIR to reuse a venv
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# The release-py profile: optimised like release but without its fat LTO
# (a link of that kind for each of some twenty test binaries took most of
# CI's time), and the dependencies it builds are the ones maturin develop
# uses below.
cargo test --profile release-py

venv=${BATCHDOKU_VENV:-$root/target/py-venv}
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "maturin>=1.9.4,<2" "pytest>=7" "numpy>=1.26" "pyarrow>=18" "pandas>=2.2,<3" \
    "pyspark[connect]>=4.1,<5"
if ! command -v java >/dev/null 2>&1 && [ -z "${JAVA_HOME:-}" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "test-all: no java; installing openjdk-17-jre-headless for the Spark tests" >&2
        apt-get install -y -q openjdk-17-jre-headless >&2 ||
            echo "test-all: could not install Java: the Spark tests will be skipped" >&2
    else
        echo "test-all: no java: the Spark tests will be skipped" \
            "(install one: apt-get install -y openjdk-17-jre-headless)" >&2
    fi
fi
# Builds the extension (profile release-py, see python/pyproject.toml) and
# installs the package into the venv.
VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" \
    maturin develop --quiet --manifest-path python/Cargo.toml
BATCHDOKU_BIN="$root/target/release-py/batchdoku" \
    "$venv/bin/python" -m pytest -q python/tests
