#!/usr/bin/env bash
# Runs every fuzz target for SECONDS each (default 30) from its committed
# seeds (fuzz/seeds/TARGET) and its growing corpus (fuzz/corpus/TARGET, not
# committed); fails on the first crash, out-of-memory or hang (a unit over
# 90 s), which libFuzzer writes to fuzz/artifacts/TARGET/; slow units are
# printed and kept in fuzz/slow/TARGET/. Needs cargo-fuzz (installed here when missing) and
# a nightly compiler (the nightly toolchain when rustup has one, else the
# stable compiler with RUSTC_BOOTSTRAP=1).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked --quiet
fi
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    fuzz=(cargo +nightly fuzz)
else
    export RUSTC_BOOTSTRAP=1
    fuzz=(cargo fuzz)
fi
"${fuzz[@]}" build
# A run over 90 s is a hang: a wide margin over the slowest units seen
# (a few seconds under the sanitizer; the parquet crate's skips of up to
# 2^31 booleans, 45 s or more, are refused before it reads them: see
# src/read/parquet/thrift.rs).
for target in $("${fuzz[@]}" list); do
    mkdir -p "fuzz/corpus/$target"
    echo "fuzz: $target for ${seconds}s"
    "${fuzz[@]}" run "$target" "fuzz/corpus/$target" "fuzz/seeds/$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=90 -print_final_stats=1 2>&1 |
        grep -E '^(stat::number_of_executed_units|stat::peak_rss_mb|Done|==[0-9]+==|SUMMARY|thread .* panicked)' || true
    # A unit over 10 s (libFuzzer's default -report_slow_units) is left as
    # slow-unit-*: a speed finding, not a failure (the solvers target meets
    # unsolvable grids of few clues whose search is exponential: 0.1-0.2 s in
    # a release build is 3-10 s under the sanitizer). Shown here in hex so
    # that the log keeps it, then moved aside.
    for slow in "fuzz/artifacts/$target"/slow-unit-*; do
        [ -e "$slow" ] || continue
        echo "fuzz: $target: slow unit (not a failure): $(od -An -tx1 -v "$slow" | tr -d ' \n')" >&2
        mkdir -p "fuzz/slow/$target"
        mv "$slow" "fuzz/slow/$target/"
    done
    # libFuzzer exits non-zero on a crash, an out-of-memory or a hang, and
    # leaves the input behind.
    if compgen -G "fuzz/artifacts/$target/*" >/dev/null; then
        echo "fuzz: $target crashed; inputs in fuzz/artifacts/$target/" >&2
        exit 1
    fi
done
