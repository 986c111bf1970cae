#!/usr/bin/env bash
# The figures the verification suites print (identified soil constants, drawbar pull
# against slip, rock-field statistics, ...), for comparing two builds of the code:
#   ci/figures.sh > new.txt            (in this checkout)
#   (cd ../old && bash /path/to/ci/figures.sh) > old.txt && diff old.txt new.txt
# Each checkout builds in its own target directory (a shared one reuses stale
# binaries). Timings and test order are dropped; the lines are sorted, so only a
# changed figure shows in the diff.
set -euo pipefail
# the checkout the shell is in (so that it also serves an older worktree)
cd "$(git rev-parse --show-toplevel)"
suites=()
for f in tests/*.rs; do
  grep -q -E 'println!|eprintln!' "$f" && suites+=(--test "$(basename "$f" .rs)")
done
cargo test --release "${suites[@]}" -- --nocapture --test-threads 1 2>&1 \
  | grep -v -E '^\s*(Running|Compiling|Finished|Blocking|warning)|finished in|^running [0-9]+ test|^$' \
  | sed -E 's/ \([0-9.]+ (ms|s)\)//g' \
  | sort
