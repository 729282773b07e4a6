#!/usr/bin/env bash
# Regenerates datasets/sample.txt: 3,000 minimal, uniquely solvable puzzles
# made by batchdoku's own generator from a fixed seed. The output depends
# only on the seed and the generator (not on the thread count).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
./target/release/batchdoku generate --count 3000 --seed 2026 --minimal -o datasets/sample.txt
sha256sum datasets/sample.txt
