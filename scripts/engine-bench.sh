#!/usr/bin/env bash
# Measures the batch engine's scaling (issue 3's figures in BENCHMARKS.md):
#  1. forum_hardest_1905_11plus: solve with 1 and 2 threads (limit 2);
#  2. 17_clue: `solve -j 2` end to end (median of seven runs) against
#     `bench --threads 1` (the solver alone, single thread), limits 1 and 2;
#  3. 1,000,000 easy puzzles (easy_100k ten times) file to file with 2
#     threads, against the fast solver's single-thread solve-only rate on
#     the same puzzles (limit 1, as `solve` uses by default), with peak RSS.
# Needs ../shared/datasets. Writes scratch files under ${TMPDIR:-/tmp}.
set -euo pipefail
cd "$(dirname "$0")/.."
data=../shared/datasets
tmp=${TMPDIR:-/tmp}/batchdoku-engine-bench
mkdir -p "$tmp"
cargo build --release --quiet --bin batchdoku --example rate
bin=./target/release/batchdoku

rate() { # puzzles/s from the summary line of `solve`
  sed -n 's/.* s, \([0-9]*\) puzzles\/s.*/\1/p'
}

echo "== forum_hardest_1905_11plus, limit 2"
one=$($bin solve -j 1 --limit 2 "$data/forum_hardest_1905_11plus.txt" -o "$tmp/fh1.txt" 2>&1 | rate)
two=$($bin solve -j 2 --limit 2 "$data/forum_hardest_1905_11plus.txt" -o "$tmp/fh2.txt" 2>&1 | rate)
cmp "$tmp/fh1.txt" "$tmp/fh2.txt"
echo "1 thread: $one/s, 2 threads: $two/s, ratio $(echo "scale=2; $two / $one" | bc)"

echo "== 17_clue: solve -j 2 end to end against the single-thread bench rate"
# The file takes about 50 ms with two threads, so one run says little: seven
# runs, each after a short pause (as a user would start one), median and range.
for limit in 1 2; do
  bench=$($bin bench --solvers fast --limit $limit --threads 1 --min-time 3 --format json \
    "$data/17_clue.txt" | sed -n 's/.*"puzzles_per_sec": *\([0-9.]*\).*/\1/p')
  runs=$(for _ in 1 2 3 4 5 6 7; do
    sleep 0.3
    $bin solve -j 2 --limit $limit "$data/17_clue.txt" -o "$tmp/17.txt" 2>&1 | rate
  done | sort -n | tr '\n' ' ')
  read -r -a r <<< "$runs"
  ratio() { echo "scale=2; $1 / $bench" | bc; }
  echo "limit $limit: bench 1 thread ${bench%.*}/s; solve -j 2 median ${r[3]}/s (ratio $(ratio "${r[3]}")), range ${r[0]}-${r[6]} ($(ratio "${r[0]}")-$(ratio "${r[6]}"))"
done

echo "== 1,000,000 easy puzzles, file to file"
for _ in $(seq 10); do cat "$data/easy_100k.txt"; done > "$tmp/easy_1m.txt"
solo=$(./target/release/examples/rate "$data/easy_100k.txt" fast 1 3 |
  sed -n 's/.*"puzzles_per_sec":\([0-9.]*\).*/\1/p')
rm -f "$tmp/easy_1m.out"
start=$(date +%s.%N)
/usr/bin/time -f "peak RSS %M KB" -o "$tmp/time.txt" \
  $bin solve -j 2 "$tmp/easy_1m.txt" -o "$tmp/easy_1m.out" 2> "$tmp/summary.txt"
end=$(date +%s.%N)
wall=$(echo "$end - $start" | bc)
file_rate=$(echo "1000000 / $wall" | bc)
echo "solve-only, 1 thread: ${solo%.*}/s"
echo "file to file, 2 threads: $file_rate/s (wall ${wall}s; engine's own figure $(rate < "$tmp/summary.txt")/s)"
echo "ratio $(echo "scale=2; $file_rate / $solo" | bc); $(cat "$tmp/time.txt"); input $(stat -c %s "$tmp/easy_1m.txt") bytes"
echo "== the same file through standard input"
/usr/bin/time -f "peak RSS %M KB" $bin solve -j 2 -q -o "$tmp/easy_1m.stdin.out" < "$tmp/easy_1m.txt"
cmp "$tmp/easy_1m.out" "$tmp/easy_1m.stdin.out"
