#!/usr/bin/env bash
# Issue 26, items 2 and 3: valgrind memcheck over every example FMU (target/fmu and
# target/fmu3, packaged by ci/test.sh before this runs). Three runs, each one process
# under valgrind (which runs a process's threads one at a time), started side by side
# so that both cores work; each fails on any invalid read or write and on any byte
# definitely or indirectly lost. ("Possibly lost": the thread-local blocks of the
# runtime's helper threads, which live until the process exits; each loaded FMU's
# library has its own pool.)
#   1. tests/memcheck_loop.rs loads each FMU through the FMI C API and instantiates,
#      initializes, steps, gets/serializes/deserializes/sets its state, resets, steps
#      and frees it, twice.
#   2. Issue 26, item 2 under valgrind: the FMI call fuzzer (tests/fmi_fuzz.rs), 2
#      sequences of 60 calls per example FMU: NULLs, foreign and corrupted states,
#      refused calls must not read or write out of bounds nor leak.
#   3. Issue 52, item 5: the FMI 3.0 entry points. ci/fmi3_run.c, a C master, drives
#      every FMI 3.0 example FMU (target/fmu3): configuration of the collection sizes,
#      initialization, steps with every output read, FMU state get/serialize/
#      deserialize/set continuing bit for bit, dependencies, refused calls (unknown
#      value references, wrong nValues, NULL arrays), reset, terminate, free.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# the executable of an integration test, built with the release profile and the
# workspace's features (those of ci/test.sh's cargo test step: nothing built again)
test_binary() {
  local bin
  bin=$(cargo test --release --workspace --test "$1" --no-run --message-format=json 2>/dev/null \
    | sed -n "s/.*\"executable\":\"\([^\"]*$1[^\"]*\)\".*/\1/p" | tail -1)
  [ -x "$bin" ] || { echo "ci/memcheck.sh: no $1 test binary" >&2; exit 1; }
  echo "$bin"
}
loop=$(test_binary memcheck_loop)
fuzz=$(test_binary fmi_fuzz)
out=target/fmi3-memcheck
mkdir -p "$out"
cc -O1 -g -Wall -Wextra -Werror -o "$out/fmi3_run" ci/fmi3_run.c -ldl
mapfile -t plans < <(.venv/bin/python ci/fmi3_plans.py target/fmu3 "$out/plans")

# ci/valgrind-glibc.supp: the one block glibc's dlopen keeps when a process loads many
# libraries (each run loads every example FMU's; the fuzzer's run showed it too once)
memcheck=(valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=3
  --suppressions=ci/valgrind-glibc.supp)
t0=$SECONDS
MEMCHECK_FMUS=target/fmu "${memcheck[@]}" "$loop" --ignored --test-threads=1 \
  > target/memcheck.log 2>&1 & pid_loop=$!
FUZZ_FMUS=target/fmu FUZZ_SEQUENCES=2 FUZZ_CALLS=60 "${memcheck[@]}" "$fuzz" --ignored --nocapture \
  --test-threads=1 random_fmi_call_sequences_on_every_example > target/memcheck_fuzz.log 2>&1 & pid_fuzz=$!
"${memcheck[@]}" "$out/fmi3_run" "${plans[@]}" \
  > target/memcheck_fmi3.log 2>&1 & pid_fmi3=$!

failed=0
# PID LOG WHAT: waits for one run and reports it
report() {
  if wait "$1"; then
    grep -E "fmi fuzz:|fmi3_run:|definitely lost:|indirectly lost:|ERROR SUMMARY" "$2" | sed 's/^==[0-9]*==/ /'
    echo "ci/memcheck.sh: $3 under valgrind: no invalid access, nothing definitely or indirectly lost ($((SECONDS - t0)) s)"
  else
    grep -E "Invalid|definitely lost|indirectly lost|ERROR SUMMARY|fmi3_run" "$2" | head -40
    echo "ci/memcheck.sh: $3 FAILED under valgrind (log: $2)"
    failed=1
  fi
}
report $pid_loop target/memcheck.log "$(ls target/fmu/*.fmu | wc -l) FMUs (FMI 2.0)"
report $pid_fuzz target/memcheck_fuzz.log "the FMI call fuzzer"
report $pid_fmi3 target/memcheck_fmi3.log "${#plans[@]} FMI 3.0 FMUs"
exit $failed
