#!/usr/bin/env bash
# The README's test command: everything CI checks, from a fresh clone.
#   1. ci/setup.sh: system packages (libclang for the fmi crate) and .venv with fmpy
#   2. cargo test --release: unit, doc and integration tests (FMUs loaded back through
#      the FMI C API), built with the release profile the shipped runtime uses: one
#      build of the dependencies serves the tests and the packaging step
#   3. release build (what the tests built, reused) and packaging of every example;
#      the win64 and aarch64-linux runtimes cross-built (ci/cross.sh); the Python wheel
#      (ci/wheel.sh) with all three, checked in a fresh venv without Rust
#      (ci/wheel_check.sh: pytest, API and console script against cargo's FMUs);
#      random FMI call sequences against every example FMU (tests/fmi_fuzz.rs)
#   4. the example scripts, and fmpy: validate and simulate every example FMU, runtime
#      behaviour and the TerRA section 4.1 test as fmpy sees them; the declared
#      dependencies against perturbed inputs and parameters (ci/feedthrough_check.py);
#      every FMU in the FMU Compliance Checker and OMSimulator (ci/importers_check.py)
#   5. co-simulation: the closed loops as SSP files (schema and structure checked, run
#      in libcosim), monolithic against co-simulated in fmpy and libcosim, and every
#      example FMU in libcosim against fmpy (docs/cosimulation.md); a small Dask sweep
#      (docs/sweeps.md) and the soil export picture; calibration (docs/calibration.md)
#   6. behaviour unchanged: every example's outputs bit-identical to ci/reference/
#      (ci/behaviour.py); the FMI 3.0 FMUs of every example (docs/fmi3.md) validated,
#      their interface driven through fmpy, their outputs bit-identical to the same
#      record, run in OMSimulator; every example FMU (2.0 and 3.0) under valgrind memcheck
#      (ci/memcheck.sh); docs/scenario-format.md current with the schema
#   7. platforms: every example FMU with all three runtimes run under Wine and qemu,
#      bit-identical to linux64 (docs/platforms.md)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

# each step with the time since the start, so a slow step shows in the log
# and the disk left (a full disk fails late, and not always with a clear message)
step() {
  printf '\n==> [%d min %02d s, %s free] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) \
    "$(df -Ph . | awk 'NR==2 {print $4}')" "$*"
}

free_kb=$(df -Pk . | awk 'NR==2 {print $4}')
if [ "$free_kb" -lt $((9 * 1024 * 1024)) ]; then
  echo "warning: $((free_kb / 1024)) MB of free disk; a run writes about 8 GB (README)"
fi

step "setup"
bash ci/setup.sh

step "sysroot: the Linux targets linked against Debian 11's glibc 2.31; the runtimes then ask for glibc 2.17 symbols at most (ci/sysroot.sh, docs/platforms.md)"
bash ci/sysroot.sh
source target/sysroot/env.sh

step "cargo test --release (workspace)"
cargo test --release --workspace

step "release build and packaging of the examples"
cargo build --release --workspace
target/release/contact-fmu package examples/*.json -o target/fmu

step "release runtime: every fmi2 function exported, nothing needed beyond libc/libm/libpthread/libdl"
so=target/release/libcontact_fmu_runtime.so
n=$(nm -D --defined-only "$so" | grep -c ' T fmi2')
[ "$n" -eq 34 ] || { echo "expected 34 exported fmi2 functions, found $n"; exit 1; }
if ldd "$so" | grep -v -E 'linux-vdso|libc\.so|libm\.so|libpthread\.so|libdl\.so|ld-linux'; then
  echo "the runtime needs a library beyond libc/libm/libpthread/libdl (above)"; exit 1
fi
echo "34 fmi2 functions exported; needs only: $(ldd "$so" | awk '{print $1}' | tr '\n' ' ')"
# the newest glibc symbol version a runtime may ask for (docs/platforms.md, "Which Linux")
glibc_at_most() {
  local need; need=$(bash ci/glibc_needed.sh "$1")
  [ "$(printf '%s\n' "$need" 2.17 | sort -V | tail -1)" = 2.17 ] \
    || { echo "$1 needs glibc $need; the promise is 2.17 (ci/sysroot.sh, fmu-template/src/glibc_math.rs)"; exit 1; }
  echo "$1 needs glibc $need (strong symbol versions; weak ones are optional)"
}
glibc_at_most "$so"

step "platform runtimes: win64 and aarch64-linux cross-built (ci/cross.sh: Debian's Rust with -Zbuild-std), for the FMUs of the platforms step and the Python wheel"
bash ci/cross.sh --test-tools
glibc_at_most target/release/runtimes/aarch64-linux/libcontact_fmu_runtime.so

step "Python package: the wheel (maturin, PyO3 abi3) with every runtime, manylinux (auditwheel show), installed into .venv for the example scripts (docs/python.md)"
bash ci/wheel.sh --install

step "Python package without Rust: a fresh venv with only the wheel, no cargo or rustc on PATH; pytest (python/tests); every example packaged through the API and the console script, identical to the cargo-built FMUs; their fmpy outputs bit-identical to ci/reference/behaviour.json"
bash ci/wheel_check.sh

step "FMI call fuzzing: 50 random sequences of 100 calls per example FMU, fixed seed (tests/fmi_fuzz.rs)"
# --workspace here and in ci/memcheck.sh: the features unified over the whole workspace,
# as in the cargo test step, so its test executables are reused (without it, cargo
# builds some 50 dependencies again with the root package's features: 2 min)
FUZZ_FMUS=target/fmu FUZZ_SEQUENCES=50 FUZZ_CALLS=100 FUZZ_SEED=26 \
  cargo test --release --workspace --test fmi_fuzz -- --ignored --nocapture random_fmi_call_sequences_on_every_example 2>&1 \
  | grep -E -A4 "fmi fuzz:|panicked|test result"

step "example scripts (fmpy + matplotlib, PNGs in target/fmu/)"
.venv/bin/python examples/sphere_drop.py target/fmu/bbcc_sphere_drop.fmu target/fmu/bbcc_sphere_drop.png
.venv/bin/python examples/terra_single_wheel.py target/fmu/terra_single_wheel.fmu target/fmu/terra_single_wheel.png
# the wheel-model comparison, shortened (docs/models/wheel-comparison.md has the full run)
.venv/bin/python examples/wheel_models.py target/wheel_models --slips 0,0.3 --time 2

step "fmpy: validate and simulate every example FMU"
.venv/bin/python ci/fmpy_check.py target/fmu

step "feedthrough: every input (and parameter in initialization) perturbed, no output changes that its declared dependencies leave out"
.venv/bin/python ci/feedthrough_check.py target/fmu --max-knowns 200

step "importers: every example FMU in the FMU Compliance Checker and OMSimulator (../shared/importers; skipped when absent)"
.venv/bin/python ci/importers_check.py fmus target/fmu ci/reference/behaviour.json

step "co-simulation: the closed loops as SSP systems (contact-fmu ssp), checked, run in libcosim"
for loop in sphere scm terra; do
  target/release/contact-fmu ssp "examples/cosim_${loop}_body.json" "examples/cosim_${loop}_contact.json" \
    -o "target/ssp/cosim_${loop}.ssp" --osp "target/osp/cosim_${loop}"
done
.venv/bin/python ci/masters_check.py ssp target/ssp/cosim_*.ssp
.venv/bin/python ci/importers_check.py ssp target/ssp/cosim_*.ssp
.venv/bin/python ci/masters_check.py osp target/osp/cosim_sphere target/ssp/cosim_sphere.ssp \
  target/osp/cosim_scm target/ssp/cosim_scm.ssp target/osp/cosim_terra target/ssp/cosim_terra.ssp

step "co-simulation: monolithic against co-simulated in fmpy (Jacobi, Gauss-Seidel) and libcosim, one step per loop"
.venv/bin/python examples/cosim_study.py --quick --out target/cosim

step "sweeps: a small drawbar-pull sweep on a Dask LocalCluster of 2 workers, checked against single runs"
.venv/bin/python examples/sweep_drawbar.py --workers 2 --soils dlr_a,dlr_a_c200 --slips 0.1,0.3 --time 2 \
  --out target/sweep --check

step "sweeps: a Monte-Carlo of a wheel over two generated rock fields on 2 workers, checked against single runs"
.venv/bin/python examples/sweep_rockfield.py --seeds 2 --workers 2 --out target/rockfield --check

step "pictures: the soil export of a multi-pass run (six rover wheels) rendered to a PNG"
.venv/bin/python examples/soil_multipass.py target/fmu/scm_rover_wheels.fmu target/fmu/soil_multipass.png

step "calibration: TerRA, Bekker and BJH fitted to our SCM (drop test, drawbar-pull test; contact-fmu fit); the patched FMU in fmpy; the drop fit again on a Dask LocalCluster"
target/release/contact-fmu fit examples/fit/terra_drop_fit.json -o target/fit/drop
target/release/contact-fmu fit examples/fit/terra_dbp_fit.json -o target/fit/dbp
target/release/contact-fmu fit examples/fit/bekker_dbp_fit.json -o target/fit/bekker
target/release/contact-fmu fit examples/fit/bjh_dbp_fit.json -o target/fit/bjh
target/release/contact-fmu package examples/fit/terra_drop.json --patch target/fit/drop/patch.json -o target/fit/drop
target/release/contact-fmu fit examples/fit/terra_drop_fit.json -o target/fit/drop_dask \
  --evaluator ".venv/bin/python examples/fit_dask.py --workers 2"
.venv/bin/python ci/fit_check.py target/fit/drop/fit.json target/fit/dbp/fit.json \
  --patched target/fit/drop/fit_terra_drop.fmu --same-as target/fit/drop_dask/fit.json \
  --family target/fit/bekker/fit.json --family target/fit/bjh/fit.json
.venv/bin/python examples/fit_plot.py examples/fit/terra_drop_fit.json target/fit/drop/fit.json

step "libcosim: every example FMU, last values against fmpy's"
.venv/bin/python ci/masters_check.py fmus target/fmu ci/reference/behaviour.json

step "behaviour: every example FMU's outputs bit-identical to ci/reference/behaviour.json"
.venv/bin/python ci/behaviour.py check target/fmu ci/reference/behaviour.json

step "FMI 3.0: every example packaged with --fmi 3 in its three layouts (arrays with collections, arrays per body, scalars); fmpy validates them and drives the interface (ci/fmi3_check.py); every output bit-identical to the FMI 2.0 record; the scalar layout in OMSimulator"
n=$(nm -D --defined-only "$so" | grep -c ' T fmi3')
[ "$n" -eq 75 ] || { echo "expected the 75 fmi3 functions of fmi3Functions.h exported, found $n"; exit 1; }
target/release/contact-fmu package --fmi 3 examples/*.json -o target/fmu3 --platforms linux64
target/release/contact-fmu package --fmi 3 --layout bodies examples/*.json -o target/fmu3-bodies --platforms linux64
target/release/contact-fmu package --fmi 3 --scalars examples/*.json -o target/fmu3-scalars --platforms linux64
.venv/bin/python ci/fmi3_check.py target/fmu3 --fuzz 3
.venv/bin/python ci/fmi3_check.py target/fmu3-bodies --interface bbcc_rolling
.venv/bin/python ci/fmi3_check.py target/fmu3-scalars --interface bbcc_sphere_drop
.venv/bin/python ci/behaviour.py check-fmi3 target/fmu3 ci/reference/behaviour.json
.venv/bin/python ci/behaviour.py check-fmi3 target/fmu3-bodies ci/reference/behaviour.json
.venv/bin/python ci/behaviour.py check-fmi3 target/fmu3-scalars ci/reference/behaviour.json
.venv/bin/python ci/importers_check.py fmus target/fmu3-scalars ci/reference/behaviour.json --no-fmucheck

step "memory: every example FMU, FMI 2.0 and 3.0, under valgrind memcheck (instantiate, step, states, reset, free)"
bash ci/memcheck.sh

step "platforms: the library's unit tests under Wine and qemu, every example packaged with all three runtimes (cross-built above), run under Wine and qemu for their whole experiment, outputs bit-identical to linux64 (ci/platforms.py)"
bash ci/cross_tests.sh
# the C math the Windows DLL takes from msvcrt: only what dependencies call where no
# result of ours depends on its rounding (docs/platforms.md); a new one fails here
dll=target/release/runtimes/win64/contact_fmu_runtime.dll
math=$(x86_64-w64-mingw32-objdump -p "$dll" | awk '/DLL Name: msvcrt/{m=1; next} /DLL Name:/{m=0} m && NF==3 {print $3}' \
  | grep -E '^(a?sinh?|a?cosh?|a?tanh?|atan2|exp|exp2|expm1|log|log2|log10|log1p|pow|hypot|cbrt|fmod|erfc?|tgamma|lgamma)f?$' | sort | tr '\n' ' ')
for f in $math; do
  case " acos asin atan2 cos exp log pow sin " in *" $f "*) ;;
    *) echo "the Windows runtime imports $f from msvcrt, which no dependency did (docs/platforms.md)"; exit 1;; esac
done
echo "win64 runtime's C math from msvcrt, all in dependencies: $math"
target/release/contact-fmu package examples/*.json -o target/fmu-platforms --platforms linux64,win64,aarch64-linux
.venv/bin/python ci/platforms.py target/fmu-platforms --validate

step "generated files: the scenario field reference matches the schema; pmath's exp/ln tables match ci/pmath_tables.py"
.venv/bin/python ci/scenario_doc.py --check
.venv/bin/python ci/pmath_tables.py --check
