#!/usr/bin/env bash
# Issue 26, items 2 and 3: valgrind memcheck over every example FMU (target/fmu, packaged by
# ci/test.sh before this runs): tests/memcheck_loop.rs loads each through the FMI C
# API and instantiates, initializes, steps, gets/serializes/deserializes/sets its
# state, resets, steps and frees it, twice. Fails on any invalid read or write and on
# any byte definitely or indirectly lost. ("Possibly lost": the thread-local blocks of
# the runtime's helper threads, which live until the process exits; each loaded FMU's
# library has its own pool.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=$(cargo test --release --test memcheck_loop --no-run --message-format=json 2>/dev/null \
  | sed -n 's/.*"executable":"\([^"]*memcheck_loop[^"]*\)".*/\1/p' | tail -1)
[ -x "$bin" ] || { echo "ci/memcheck.sh: no memcheck_loop test binary" >&2; exit 1; }
log=target/memcheck.log
MEMCHECK_FMUS=target/fmu valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect \
  --error-exitcode=3 "$bin" --ignored --test-threads=1 > "$log" 2>&1 || {
  grep -E "Invalid|definitely lost|indirectly lost|ERROR SUMMARY" "$log" | head -40
  echo "ci/memcheck.sh: FAILED (log: $log)"
  exit 1
}
n=$(ls target/fmu/*.fmu | wc -l)
grep -E "definitely lost:|indirectly lost:|ERROR SUMMARY" "$log" | sed 's/^==[0-9]*==/ /'
echo "ci/memcheck.sh: $n FMUs under valgrind: no invalid access, nothing definitely or indirectly lost"

# Issue 26, item 2 under valgrind: the FMI call fuzzer (tests/fmi_fuzz.rs), 2 sequences
# of 60 calls per example FMU: NULLs, foreign and corrupted states, refused calls must
# not read or write out of bounds nor leak.
bin=$(cargo test --release --test fmi_fuzz --no-run --message-format=json 2>/dev/null \
  | sed -n 's/.*"executable":"\([^"]*fmi_fuzz[^"]*\)".*/\1/p' | tail -1)
[ -x "$bin" ] || { echo "ci/memcheck.sh: no fmi_fuzz test binary" >&2; exit 1; }
log=target/memcheck_fuzz.log
FUZZ_FMUS=target/fmu FUZZ_SEQUENCES=2 FUZZ_CALLS=60 valgrind --leak-check=full \
  --errors-for-leak-kinds=definite,indirect --error-exitcode=3 \
  "$bin" --ignored --nocapture --test-threads=1 random_fmi_call_sequences_on_every_example > "$log" 2>&1 || {
  grep -E "Invalid|definitely lost|indirectly lost|ERROR SUMMARY" "$log" | head -40
  echo "ci/memcheck.sh: the FMI call fuzzer FAILED under valgrind (log: $log)"
  exit 1
}
grep -E "fmi fuzz:|definitely lost:|indirectly lost:|ERROR SUMMARY" "$log" | sed 's/^==[0-9]*==/ /'
echo "ci/memcheck.sh: the FMI call fuzzer under valgrind: no invalid access, nothing definitely or indirectly lost"

# Issue 52, item 5: the FMI 3.0 entry points under valgrind. ci/fmi3_run.c, a C master,
# drives every FMI 3.0 example FMU (target/fmu3, packaged by ci/test.sh's FMI 3.0 step):
# configuration of the collection sizes, initialization, steps with every output read,
# FMU state get/serialize/deserialize/set continuing bit for bit, dependencies, refused
# calls (unknown value references, wrong nValues, NULL arrays), reset, terminate, free.
# One process loads all 37 libraries; ci/valgrind-glibc.supp holds the one block
# glibc's dlopen keeps from that.
out=target/fmi3-memcheck
mkdir -p "$out"
cc -O1 -g -Wall -Wextra -Werror -o "$out/fmi3_run" ci/fmi3_run.c -ldl
mapfile -t plans < <(.venv/bin/python ci/fmi3_plans.py target/fmu3 "$out/plans")
log=target/memcheck_fmi3.log
valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect \
  --suppressions=ci/valgrind-glibc.supp --error-exitcode=3 \
  "$out/fmi3_run" "${plans[@]}" > "$log" 2>&1 || {
  grep -E "Invalid|definitely lost|indirectly lost|ERROR SUMMARY|fmi3_run" "$log" | head -40
  echo "ci/memcheck.sh: the FMI 3.0 entry points FAILED under valgrind (log: $log)"
  exit 1
}
grep -E "fmi3_run:|definitely lost:|indirectly lost:|ERROR SUMMARY" "$log" | sed 's/^==[0-9]*==/ /'
echo "ci/memcheck.sh: ${#plans[@]} FMI 3.0 FMUs under valgrind: no invalid access, nothing definitely or indirectly lost"
