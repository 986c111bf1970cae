#!/usr/bin/env bash
# The unit tests of the library (the models, scenarios, assets, the portable math: all
# but the packager, which runs on the build machine) and of the FMU runtime crate
# (resource URIs in both path syntaxes, the FMI state machine, the logger, every pmath
# function's bits), built for win64 and aarch64-linux and run where those run: under
# Wine and under qemu-aarch64 (docs/platforms.md). Needs what `bash ci/cross.sh
# --test-tools` installs; reuses its target/cross/ builds.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

export RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 CARGO_PROFILE_RELEASE_STRIP=symbols
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
export CC_x86_64_pc_windows_gnu=x86_64-w64-mingw32-gcc
# aarch64 against Debian 11's glibc 2.31 as in ci/cross.sh, and run on it (qemu -L)
bash ci/sysroot.sh >/dev/null
source target/sysroot/env.sh

# the test executable cargo built for TRIPLE (the last "executable" it reports)
build_tests() {
  /usr/bin/cargo test --release --locked -p contact-fmu-runtime --lib --target "$1" \
    -Zbuild-std=std,panic_abort,test --target-dir target/cross --no-run --message-format=json 2>/dev/null \
    | python3 -c 'import json,sys
exe=[json.loads(l).get("executable") for l in sys.stdin if l.startswith("{")]
print([e for e in exe if e][-1])'
}

# The library's unit-test executable for TRIPLE. `cargo test` would build the
# dev-dependencies, and the fmi crate's (zstd's C sources, bindgen) do not cross-build;
# `cargo rustc -- --test` builds only the library's own dependencies, with tempfile from
# the feature cross-unit-tests (Cargo.toml), and links them as .rlib through
# ci/platforms/rlib_externs.sh (which waits for the ones this run is still writing).
build_library_tests() {
  local args=(--release --locked -p contact-fmu --lib --no-default-features
    --features cross-unit-tests --target "$1" -Zbuild-std=std,panic_abort,test
    --target-dir target/cross)
  local stamp="$work/stamp-$1"
  touch "$stamp"
  RLIB_EXTERNS_SINCE="$stamp" RUSTC_WORKSPACE_WRAPPER="$root/ci/platforms/rlib_externs.sh" \
    /usr/bin/cargo rustc "${args[@]}" -- --test >&2
  find "target/cross/$1/release/deps" -maxdepth 1 -type f -newer "$stamp" \
    -name 'contact_fmu-*' ! -name '*.d' | head -n 1
}

work="$root/target/cross-tests"
mkdir -p "$work"

t0=$SECONDS
took() { echo "ci/cross_tests.sh: $1 ($((SECONDS - t0)) s)"; t0=$SECONDS; }
runtime=$(build_tests x86_64-pc-windows-gnu)
cp "$runtime" "$work/runtime_tests.exe"
library=$(build_library_tests x86_64-pc-windows-gnu)
cp "$library" "$work/library_tests.exe"
took "win64: the test executables built"
x86_64-w64-mingw32-gcc -shared -O1 -o "$work/bcryptprimitives.dll" ci/platforms/bcryptprimitives.c -ladvapi32
for t in runtime library; do
  echo "ci/cross_tests.sh: win64 under Wine, the $t's unit tests"
  WINEPREFIX="$root/target/platforms-wine" WINEDEBUG=-all WINEDLLOVERRIDES="bcryptprimitives=n" \
    wine "$work/${t}_tests.exe" --test-threads 2
done
took "win64: the tests run"

runtime=$(build_tests aarch64-unknown-linux-gnu)
library=$(build_library_tests aarch64-unknown-linux-gnu)
took "aarch64-linux: the test executables built"
for exe in "$runtime" "$library"; do
  echo "ci/cross_tests.sh: aarch64-linux under qemu, $(basename "$exe")"
  qemu-aarch64-static -L target/sysroot/arm64 "$exe" --test-threads 2
done
took "aarch64-linux: the tests run"
